/** Storage of posture data and failed service requests (the posture-evaluation issue defines it). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PostureRepository {}
