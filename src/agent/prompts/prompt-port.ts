/**
 * How the agent asks the user for an authenticator code and tells them what happened. The CLI implements
 * it with terminal prompts; the desktop app with a notification and a small always-on-top TOTP window.
 * The agent guarantees at most one open prompt at a time: a second reason while one is open is merged
 * into it (`updatePrompt`), never shown as another prompt. The data types live in `src/api/prompts.ts`
 * so the renderer can use them.
 */
import type { AgentNotice, TotpPrompt } from '../../api/prompts.js';

export type { AgentNotice, PromptReason, PromptService, TotpPrompt } from '../../api/prompts.js';

export interface PromptPort {
  /**
   * Shows a prompt and resolves with the code entered, or null when the user dismissed it. The signal
   * aborts when the prompt is no longer needed (the agent stopped, or the code arrived another way); the
   * implementation should close its prompt and resolve null.
   */
  promptTotp(prompt: TotpPrompt, signal: AbortSignal): Promise<string | null>;
  /** The open prompt now covers more services or a sooner deadline. Optional: a terminal cannot redraw. */
  updatePrompt?(prompt: TotpPrompt): void;
  /** Something the user should know about; never blocks the agent. */
  notify(notice: AgentNotice): void;
}
