/** One line and an exit code for every way an admin command can fail; the agent's wording where it fits. */
import { controllerFailure, explainError, EXIT, type ExitCode } from '../agent/cli/cli-errors.js';
import { ControllerError } from '../controller-client/controller-error.js';
import { CredentialStoreError } from '../agent/credentials/credential-store.js';
import { agentCommand, adminCommand } from '../agent/cli/command-name.js';

const ADMIN_ADVICE = {
  signInAgain: `sign in again (${adminCommand('login')}, or POSTERN_ADMIN_USERNAME and POSTERN_ADMIN_PASSWORD)`,
  setUpMfa: `set one up first, signed in as this administrator (${agentCommand('mfa setup')})`,
};

export function explainAdminError(error: unknown): { message: string; exitCode: ExitCode } {
  if (error instanceof ControllerError) return controllerFailure(error, ADMIN_ADVICE);
  if (error instanceof CredentialStoreError)
    return {
      message: `${error.message} (use --credential-store file, or memory to keep no session)`,
      exitCode: EXIT.error,
    };
  return explainError(error);
}
