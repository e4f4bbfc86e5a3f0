/**
 * The service's prompt port: the agent's requests for an authenticator code go out as `code-wanted` events
 * to every subscribed client (the desktop's tray prompt, the CLI's `code`), and the first `submitCode`
 * answers the open prompt. Notices go out as `notice` events. The service never reads a terminal.
 */
import type { AgentNotice, PromptPort, TotpPrompt } from '../prompts/prompt-port.js';
import type { ServiceEvent } from './service-protocol.js';

/** How long a submitted code may take to be verified before `submitCode` answers anyway. */
const VERDICT_WAIT_MS = 15_000;

/** The prompter's `accepted` listeners: fires once a code was accepted. */
interface AcceptedSignal {
  on(listener: () => void): () => void;
}

interface OpenPrompt {
  prompt: TotpPrompt;
  answer(code: string | null): void;
}

export class ServicePrompts implements PromptPort {
  private open: OpenPrompt | undefined;
  /** the next prompt's arrival: the code just submitted was refused and the agent asks again */
  private askedAgain: (() => void) | undefined;
  private accepted: AcceptedSignal | undefined;

  constructor(private readonly publish: (event: ServiceEvent) => void) {}

  /** The agent's "code accepted" signal (set once its agent exists): `submitCode` waits for it. */
  watchAccepted(accepted: AcceptedSignal): void {
    this.accepted = accepted;
  }

  current(): TotpPrompt | null {
    return this.open?.prompt ?? null;
  }

  promptTotp(prompt: TotpPrompt, signal: AbortSignal): Promise<string | null> {
    this.askedAgain?.();
    return new Promise((resolve) => {
      const open: OpenPrompt = {
        prompt,
        answer: (code) => {
          if (this.open !== open) return;
          this.open = undefined;
          signal.removeEventListener('abort', onAbort);
          this.publish({ event: 'code-prompt-closed', data: {} });
          resolve(code);
        },
      };
      const onAbort = () => open.answer(null);
      this.open = open;
      signal.addEventListener('abort', onAbort, { once: true });
      this.publish({ event: 'code-wanted', data: prompt });
    });
  }

  updatePrompt(prompt: TotpPrompt): void {
    if (!this.open) return;
    this.open.prompt = prompt;
    this.publish({ event: 'code-wanted', data: prompt });
  }

  notify(notice: AgentNotice): void {
    this.publish({ event: 'notice', data: notice });
  }

  /** Answers the open prompt; resolves whether the agent accepted the code. Throws when none is open. */
  async submit(code: string): Promise<boolean> {
    const open = this.open;
    if (!open) throw new Error('no authenticator code is being asked for now');
    const verdict = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), VERDICT_WAIT_MS);
      const offAccepted = this.accepted?.on(() => finish(true));
      const finish = (accepted: boolean) => {
        clearTimeout(timer);
        offAccepted?.();
        this.askedAgain = undefined;
        resolve(accepted);
      };
      this.askedAgain = () => finish(false);
    });
    open.answer(code);
    return verdict;
  }
}
