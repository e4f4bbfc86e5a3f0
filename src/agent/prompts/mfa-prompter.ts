/**
 * The one place the agent asks for an authenticator code. Whatever the reason (a login owing TOTP, a wake
 * or unlock grace period, an approaching MFA timeout), at most one prompt is open: a request that arrives
 * while one is open joins it (its services and deadline are merged in) and shares its outcome, because one
 * accepted code satisfies every MFA check of the API session. A refused code asks again, a few times.
 */
import { ERROR_CODES } from '../../api/envelopes.js';
import { isControllerError } from '../../controller-client/controller-error.js';
import { systemClock, type Clock } from '../../common/clock.js';
import { Listeners } from '../../common/listeners.js';
import { errorMessage, silentLogger, type AgentLogger } from '../../common/logger.js';
import { looksLikeCode, NOT_A_CODE_MESSAGE } from './code-shape.js';
import type { PromptPort, PromptReason, PromptService, TotpPrompt } from './prompt-port.js';

export interface MfaPromptRequest {
  reason: PromptReason;
  services?: PromptService[];
  deadline?: number;
  /** Epoch ms of the event behind the request: a code accepted at or after it already answers it. */
  since?: number;
}

export interface MfaPrompterOptions {
  port: PromptPort;
  /** Sends the code (POST /authenticate/mfa); rejects with a ControllerError when refused. */
  submit: (code: string) => Promise<void>;
  clock?: Clock;
  maxAttempts?: number;
  logger?: AgentLogger;
}

interface OpenPrompt {
  prompt: TotpPrompt;
  openedAt: number;
  abort: AbortController;
  outcome: Promise<boolean>;
}

export const WRONG_CODE_MESSAGE =
  'That code was not accepted. Enter the current code from your authenticator app.';

/**
 * The controller's words when it says why (a code already used: "wait for the next one", as the console
 * says it), else the general one.
 */
export function refusedCodeMessage(controllerMessage: string): string {
  return /^That (recovery )?code was already used/.test(controllerMessage)
    ? controllerMessage
    : WRONG_CODE_MESSAGE;
}

function mergeServices(a: PromptService[], b: PromptService[] = []): PromptService[] {
  const byId = new Map(a.map((s) => [s.id, s]));
  for (const s of b) if (!byId.has(s.id)) byId.set(s.id, s);
  return [...byId.values()];
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

export class MfaPrompter {
  /** Fires after a code was accepted, with the reason of the prompt that took it. */
  readonly accepted = new Listeners<PromptReason>();
  private open: OpenPrompt | undefined;
  private lastAcceptedAt = Number.NEGATIVE_INFINITY;
  private readonly clock: Clock;
  private readonly maxAttempts: number;
  private readonly log: AgentLogger;

  constructor(private readonly options: MfaPrompterOptions) {
    this.clock = options.clock ?? systemClock;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.log = options.logger ?? silentLogger;
  }

  get isOpen(): boolean {
    return this.open !== undefined;
  }

  /** Resolves true once a code was accepted for this request, false when the user gave none. */
  request(request: MfaPromptRequest): Promise<boolean> {
    if (request.since !== undefined && this.lastAcceptedAt >= request.since) return Promise.resolve(true);
    if (this.open) {
      const open = this.open;
      open.prompt = {
        ...open.prompt,
        services: mergeServices(open.prompt.services, request.services),
        deadline: earliest(open.prompt.deadline, request.deadline),
      };
      this.options.port.updatePrompt?.({ ...open.prompt });
      return open.outcome;
    }
    const open: OpenPrompt = {
      prompt: {
        reason: request.reason,
        services: mergeServices([], request.services),
        deadline: request.deadline,
        attempt: 1,
        acceptsRecoveryCode: true,
      },
      openedAt: this.clock.now(),
      abort: new AbortController(),
      outcome: Promise.resolve(false),
    };
    open.outcome = this.ask(open).finally(() => {
      if (this.open === open) this.open = undefined;
    });
    this.open = open;
    return open.outcome;
  }

  /** A code was accepted another way (enrollment verification): close any open prompt as answered. */
  noteAccepted(): void {
    this.lastAcceptedAt = this.clock.now();
    this.open?.abort.abort();
  }

  /** Closes an open prompt unanswered (logout, shutdown). */
  cancel(): void {
    this.open?.abort.abort();
  }

  private async ask(open: OpenPrompt): Promise<boolean> {
    const { port, submit } = this.options;
    const signal = open.abort.signal;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      open.prompt = { ...open.prompt, attempt };
      const code = await port.promptTotp({ ...open.prompt }, signal).catch((error: unknown) => {
        this.log.warn(`the code prompt failed: ${errorMessage(error)}`);
        return null;
      });
      if (signal.aborted) return this.lastAcceptedAt >= open.openedAt;
      const trimmed = code?.replace(/\s+/g, '') ?? '';
      if (trimmed === '') return false;
      if (!looksLikeCode(trimmed)) {
        // Not sent, so not counted: asked again with this attempt's number.
        open.prompt = { ...open.prompt, error: NOT_A_CODE_MESSAGE };
        attempt--;
        continue;
      }
      try {
        await submit(trimmed);
      } catch (error) {
        if (isControllerError(error, ERROR_CODES.mfaInvalidToken)) {
          open.prompt = { ...open.prompt, error: refusedCodeMessage(error.message) };
          continue;
        }
        this.failed(open, error);
        return false;
      }
      this.lastAcceptedAt = this.clock.now();
      port.notify({ type: 'mfa-accepted', reason: open.prompt.reason });
      this.accepted.emit(open.prompt.reason);
      return true;
    }
    port.notify({
      type: 'mfa-failed',
      reason: open.prompt.reason,
      message: `The code was refused ${this.maxAttempts} times; access stays as it is.`,
    });
    return false;
  }

  private failed(open: OpenPrompt, error: unknown): void {
    const { port } = this.options;
    if (isControllerError(error, ERROR_CODES.mfaNotEnrolled)) {
      port.notify({ type: 'mfa-enrollment-required', services: open.prompt.services });
      return;
    }
    let message = errorMessage(error);
    if (isControllerError(error, ERROR_CODES.rateLimited)) {
      const seconds = error.retryAfterMs === undefined ? undefined : Math.ceil(error.retryAfterMs / 1000);
      message = `Too many attempts${seconds ? `; try again in ${seconds} s` : '; try again later'}.`;
    }
    this.log.warn(`the code could not be submitted: ${message}`);
    port.notify({ type: 'mfa-failed', reason: open.prompt.reason, message });
  }
}
