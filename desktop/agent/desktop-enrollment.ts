/**
 * "Enroll with a token" for the desktop: the same checks and steps as the CLI's `enroll`
 * (src/agent/enrollment/device-enrollment.ts), with what the sign-in screen sent: a certificate for a key
 * made here (`ott`), or the new password (`updb`). Refusals read as sentences for the screen.
 */
import { DeviceEnrollment, type EnrollmentOptions } from '../../src/agent/enrollment/device-enrollment.js';
import type { DeviceIdentityStore } from '../../src/agent/enrollment/device-identity.js';
import { EnrollmentRefused } from '../../src/agent/enrollment/enrollment-refused.js';
import type { LoginCredentials } from '../../src/agent/session/session-manager.js';
import type { EnrollRequest } from '../ipc/views.js';

/** What to remember and how to sign in once the token is spent. */
export interface DesktopEnrollment {
  controllerUrl: string;
  pinnedFingerprint: string | undefined;
  /** the new password login (`updb`), or none: sign in with the certificate (`ott`) */
  login: LoginCredentials | undefined;
}

const sentence = (text: string) =>
  `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;

export async function enrollFromDesktop(
  request: EnrollRequest,
  devices: DeviceIdentityStore,
  options: Omit<EnrollmentOptions, 'controllerUrl'>,
): Promise<DesktopEnrollment> {
  try {
    const enrollment = await DeviceEnrollment.check(request.token, options);
    try {
      const { controllerUrl, pinnedFingerprint, method } = enrollment.summary;
      if (method === 'ott') {
        await enrollment.withCertificate(devices);
        return { controllerUrl, pinnedFingerprint, login: undefined };
      }
      const username = enrollment.summary.username ?? request.username;
      if (!username || !request.password)
        throw new EnrollmentRefused('this token sets a password: enter your username and a new password');
      await enrollment.withPassword(request.password, username);
      return { controllerUrl, pinnedFingerprint, login: { username, password: request.password } };
    } finally {
      enrollment.close();
    }
  } catch (error) {
    if (error instanceof EnrollmentRefused) throw new EnrollmentRefused(sentence(error.message));
    throw error;
  }
}
