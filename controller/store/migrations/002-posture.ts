/** 2: posture data per identity and API session, failed service requests. */
export const posture = `SELECT 1;`;
