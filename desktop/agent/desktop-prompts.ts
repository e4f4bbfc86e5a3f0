/**
 * The agent's PromptPort for the desktop: a TOTP prompt becomes ONE notification and the small always-on-top
 * prompt window (or, for a sign-in, the code field of the sign-in screen the user is looking at); the
 * renderer answers through the `prompt` IPC channels. What the agent merges into an open prompt updates the
 * window without another notification. Electron stays behind the PromptSurface port.
 */
import type { AgentNotice, PromptPort, TotpPrompt } from '../../src/agent/prompts/prompt-port.js';
import { Listeners } from '../../src/common/listeners.js';
import { describeNotice, promptHeadline, promptTitle, servicesPhrase } from '../../src/api/prompts.js';
import { referenceLabel } from '../../src/api/refusal-reference.js';
import type { PromptView, ViewName } from '../ipc/views.js';

export interface PromptSurface {
  /** Opens or raises the small always-on-top TOTP window. */
  openPromptWindow(): void;
  closePromptWindow(): void;
  /** A system notification; `onClick` runs when the user clicks it. */
  notify(title: string, body: string, onClick?: () => void): void;
  /** Whether the main window is on screen (a sign-in's code is then asked for there). */
  mainWindowVisible(): boolean;
  showMainWindow(view?: ViewName): void;
}

/** After an answer, how long the window waits (showing "Checking") for the agent's verdict. */
const VERDICT_WAIT_MS = 15_000;

interface Pending {
  view: PromptView;
  resolve: (code: string | null) => void;
}

export class DesktopPrompts implements PromptPort {
  readonly changes = new Listeners<PromptView | null>();
  private pending: Pending | undefined;
  /** The prompt on screen: stays after an answer until the agent accepts, refuses or asks again. */
  private shown: PromptView | null = null;
  private nextId = 1;
  private windowOpen = false;
  private verdictTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly surface: PromptSurface,
    private readonly now: () => number = Date.now,
  ) {}

  current(): PromptView | null {
    return this.shown;
  }

  promptTotp(prompt: TotpPrompt, signal: AbortSignal): Promise<string | null> {
    this.pending?.resolve(null);
    clearTimeout(this.verdictTimer);
    // A refused code asks again in the same prompt: same id, same window, no second notification.
    const again = this.shown !== null && prompt.attempt > 1;
    const view = this.toView(prompt, again ? this.shown!.id : this.nextId++);
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(null);
      const pending: Pending = { view, resolve };
      this.pending = pending;
      signal.addEventListener('abort', () => {
        if (this.pending !== pending) return;
        this.pending = undefined;
        resolve(null);
        this.close();
      });
      this.show(view, !again);
    });
  }

  updatePrompt(prompt: TotpPrompt): void {
    if (!this.shown) return;
    const view = this.toView(prompt, this.shown.id);
    if (this.pending) this.pending.view = view;
    this.shown = view;
    this.changes.emit(view);
  }

  /** The renderer's answer; false when that prompt is no longer open. */
  answer(promptId: number, code: string): boolean {
    const pending = this.pending;
    if (!pending || pending.view.id !== promptId) return false;
    this.pending = undefined;
    pending.resolve(code);
    // Keep the prompt up while the code is checked; the verdict (or a new ask) arrives shortly.
    this.verdictTimer = setTimeout(() => this.close(), VERDICT_WAIT_MS);
    return true;
  }

  dismiss(): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve(null);
    this.close();
  }

  notify(notice: AgentNotice): void {
    switch (notice.type) {
      case 'mfa-accepted':
        this.close();
        break;
      case 'mfa-failed':
        this.close();
        this.surface.notify('Authenticator code not accepted', notice.message, () =>
          this.surface.showMainWindow('services'),
        );
        break;
      case 'mfa-enrollment-required':
        this.surface.notify(
          'Set up an authenticator app',
          `${servicesPhrase(notice.services)} need${notice.services.length === 1 ? 's' : ''} MFA. Set up an authenticator app to keep access.`,
          () => this.surface.showMainWindow('mfa'),
        );
        break;
      case 'signed-out':
        this.close();
        this.surface.notify('Signed out of Postern', notice.message, () => this.surface.showMainWindow());
        break;
      case 'service-refused':
        // The reference last, on its own line: what the user quotes when asking the administrator why.
        this.surface.notify(
          `${notice.service} is blocked`,
          [notice.reasons.join(' '), notice.reference ? referenceLabel(notice.reference) : '']
            .filter(Boolean)
            .join('\n'),
          () => this.surface.showMainWindow('services'),
        );
        break;
      case 'service-cut':
        this.surface.notify(
          `Connection to ${notice.service} cut`,
          'Access to this service ended. Open Postern to see why and what to do.',
          () => this.surface.showMainWindow('services'),
        );
        break;
      case 'mfa-reset':
        this.close();
        this.surface.notify('Set up your authenticator app again', describeNotice(notice), () =>
          this.surface.showMainWindow('mfa'),
        );
        break;
      default:
        // Reachability shows in the tray; a notification per network blip would be noise.
        break;
    }
  }

  private toView(prompt: TotpPrompt, id: number): PromptView {
    return {
      id,
      reason: prompt.reason,
      services: prompt.services.map((s) => ({ id: s.id, name: s.name })),
      deadline: prompt.deadline ?? null,
      attempt: prompt.attempt,
      error: prompt.error ?? null,
      acceptsRecoveryCode: prompt.acceptsRecoveryCode,
    };
  }

  private show(view: PromptView, isNew: boolean): void {
    this.shown = view;
    this.changes.emit(view);
    // A sign-in asks on the sign-in screen the user is looking at; everything else gets its own window.
    const inMainWindow = view.reason === 'login' && this.surface.mainWindowVisible();
    if (!inMainWindow) {
      this.surface.openPromptWindow();
      this.windowOpen = true;
    }
    if (isNew && !inMainWindow) {
      this.surface.notify(promptTitle(view, this.now()), promptHeadline(view, this.now()), () =>
        this.surface.openPromptWindow(),
      );
    }
  }

  private close(): void {
    clearTimeout(this.verdictTimer);
    if (this.windowOpen) this.surface.closePromptWindow();
    this.windowOpen = false;
    if (this.shown === null) return;
    this.shown = null;
    this.changes.emit(null);
  }
}
