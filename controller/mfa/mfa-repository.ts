/** Storage of MFA enrollments, recovery codes and the MFA audit log (the MFA issue defines it). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface MfaRepository {}
