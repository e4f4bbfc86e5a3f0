/**
 * Why this device will not enroll with a token, in one sentence for the user: the token is not an enrollment
 * token, has expired, names another controller, or its signature does not verify. Raised before the token
 * (or anything else secret) is sent, or passing on the controller's own refusal of it (already used).
 */
export class EnrollmentRefused extends Error {
  readonly code = 'ENROLLMENT_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'EnrollmentRefused';
  }
}
