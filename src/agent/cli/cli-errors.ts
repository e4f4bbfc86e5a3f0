/** One clear line and an exit code for every way a command can fail. */
import { ERROR_CODES } from '../../api/envelopes.js';
import { ControllerError, LOCAL_ERROR_CODES } from '../../controller-client/controller-error.js';
import { CredentialStoreError } from '../credentials/credential-store.js';
import { NotSignedInError } from '../session/session-manager.js';
import { EnrollmentRefused } from '../enrollment/enrollment-refused.js';
import { errorMessage } from '../../common/logger.js';
import { UsageError } from './cli-args.js';
import { agentCommand } from './command-name.js';
import { referenceLabel, referenceOfCause } from '../../api/refusal-reference.js';

export const EXIT = { ok: 0, error: 1, usage: 2, unreachable: 3, auth: 4, mfa: 5 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the command already worded. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.error,
  ) {
    super(message);
  }
}

/** What a CLI tells the user to run, in the few explanations that name a command. */
export interface ControllerFailureAdvice {
  /** after the controller refused the session */
  signInAgain: string;
  /** after a code was asked of an identity without an authenticator app */
  setUpMfa: string;
}

const AGENT_ADVICE: ControllerFailureAdvice = {
  signInAgain: `sign in again with ${agentCommand('login')}`,
  setUpMfa: `run ${agentCommand('mfa setup')}`,
};

/** A controller's refusal as one line and an exit code; shared by the agent's and the admin's CLIs. */
export function controllerFailure(
  error: ControllerError,
  advice: ControllerFailureAdvice = AGENT_ADVICE,
): { message: string; exitCode: ExitCode } {
  switch (error.code) {
    case LOCAL_ERROR_CODES.unreachable:
    case LOCAL_ERROR_CODES.tls:
      return { message: error.message, exitCode: EXIT.unreachable };
    case ERROR_CODES.invalidAuth:
      return { message: 'wrong username or password', exitCode: EXIT.auth };
    case ERROR_CODES.unauthorized:
      return {
        message: `the controller refused the session; ${advice.signInAgain}`,
        exitCode: EXIT.auth,
      };
    case ERROR_CODES.mfaInvalidToken:
      return {
        // A reused code is not a wrong one: the controller says so ("already used; wait for the next one").
        message: /^That (recovery )?code was already used/.test(error.message)
          ? `t${error.message.slice(1)}`
          : 'wrong code: enter the current code from your authenticator app',
        exitCode: EXIT.mfa,
      };
    case ERROR_CODES.mfaNotEnrolled:
      return {
        message: `no authenticator app is set up; ${advice.setUpMfa}`,
        exitCode: EXIT.mfa,
      };
    case ERROR_CODES.invalidPosture: {
      // A refused service: what the controller said, and the reference the administrator finds it by.
      const reference = referenceOfCause(error.apiCause);
      return {
        message: `access refused: ${error.message}${reference ? ` (${referenceLabel(reference)})` : ''}`,
        exitCode: EXIT.error,
      };
    }
    case ERROR_CODES.rateLimited: {
      // How long and why: the controller's reason ("Too many failed sign-ins; try again in 300 seconds").
      const why = error.message.split(';')[0]?.trim() || 'Too many attempts';
      const wait =
        error.retryAfterMs === undefined
          ? 'try again later'
          : `wait ${Math.ceil(error.retryAfterMs / 1000)} s before trying again`;
      return { message: `${why.charAt(0).toLowerCase()}${why.slice(1)}; ${wait}`, exitCode: EXIT.error };
    }
    default: {
      // A field error says what is wrong with which field ("username: must be at least 4 characters"): that,
      // not the envelope's generic message, is what the user can act on.
      const reason = error.apiCause?.reason;
      if (error.field && reason)
        return { message: `the controller refused ${error.field}: ${reason}`, exitCode: EXIT.error };
      const field = error.field ? ` (${error.field})` : '';
      return {
        message: `the controller answered ${error.code}${field}: ${error.message}`,
        exitCode: EXIT.error,
      };
    }
  }
}

export function explainError(error: unknown): { message: string; exitCode: ExitCode } {
  if (error instanceof UsageError) {
    // A message that already points at --help (an unknown option with no near spelling) says it once.
    const message = /see --help\b/.test(error.message) ? error.message : `${error.message} (see --help)`;
    return { message, exitCode: EXIT.usage };
  }
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof NotSignedInError) {
    return {
      message:
        `not signed in: run ${agentCommand('login')} (or set POSTERN_PASSWORD), or enroll this device with ` +
        `${agentCommand('enroll --token FILE')}`,
      exitCode: EXIT.auth,
    };
  }
  if (error instanceof EnrollmentRefused) return { message: error.message, exitCode: EXIT.auth };
  if (error instanceof ControllerError) return controllerFailure(error);
  if (error instanceof CredentialStoreError) {
    return {
      message: `${error.message} (on a machine without a keychain use --credential-store memory with POSTERN_PASSWORD)`,
      exitCode: EXIT.error,
    };
  }
  return { message: errorMessage(error), exitCode: EXIT.error };
}
