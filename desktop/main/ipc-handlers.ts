/**
 * The handler of every invoke channel of the schema, delegating to the desktop agent, the prompts and the
 * shell (dialogs, clipboard, windows, settings). Electron-free: `index.ts` binds it to ipcMain, the UI tests
 * to a Playwright binding. The IpcHandlers type makes a channel without a handler a compile error.
 */
import type { IpcHandlers } from '../ipc/bridge.js';
import type { SettingsView, ViewName } from '../ipc/views.js';
import type { DesktopAgent } from '../agent/desktop-agent.js';
import type { DesktopPrompts } from '../agent/desktop-prompts.js';

/** What only the desktop shell can do. */
export interface DesktopShell {
  /** Asks where to save and writes the file; false when the user cancelled. */
  saveTextFile(defaultName: string, text: string): Promise<boolean>;
  copyText(text: string): void;
  /** Opens an http(s) URL in the system browser (a provider's sign-in or sign-out page). */
  openExternal(url: URL): Promise<void>;
  showView(view: ViewName): void;
  settings(): Promise<SettingsView>;
  updateSettings(changes: Partial<SettingsView>): Promise<SettingsView>;
}

export class PromptClosedError extends Error {
  readonly code = 'PROMPT_CLOSED';
  constructor() {
    super('This prompt is no longer open.');
    this.name = 'PromptClosedError';
  }
}

/** `Alice Smith` → `Alice-Smith`, for a file name that every OS accepts. */
const fileSafe = (name: string) =>
  name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'account';

export function createIpcHandlers(
  agent: DesktopAgent,
  prompts: DesktopPrompts,
  shell: DesktopShell,
): IpcHandlers {
  return {
    session: {
      get: () => agent.session(),
      signIn: (request) => agent.signIn(request),
      providers: ({ controllerUrl }) => agent.providers(controllerUrl),
      signInWithProvider: (request) => agent.signInWithProvider(request, (url) => shell.openExternal(url)),
      enroll: (request) => agent.enroll(request),
      signOut: () => agent.signOut((url) => shell.openExternal(url)),
    },
    services: {
      get: () => agent.services(),
      checkAgain: () => agent.checkAgain(),
      copyAddress: ({ address }) => shell.copyText(address),
    },
    mfa: {
      status: () => agent.mfaStatus(),
      submitCode: ({ code }) => agent.submitCode(code),
      startEnrollment: () => agent.startEnrollment(),
      verifyEnrollment: ({ code }) => agent.verifyEnrollment(code),
      remove: ({ code }) => agent.removeMfa(code),
      recoveryCodes: async ({ code }) => ({ codes: await agent.recoveryCodes(code) }),
      regenerateRecoveryCodes: async ({ code }) => ({ codes: await agent.regenerateRecoveryCodes(code) }),
      saveRecoveryCodes: async ({ codes }) => {
        const session = agent.session();
        const name = `Postern-recovery-codes-${fileSafe(session.identityName ?? session.username ?? 'account')}.txt`;
        return { saved: await shell.saveTextFile(name, `${codes.join('\n')}\n`) };
      },
      copyRecoveryCodes: ({ codes }) => shell.copyText(codes.join('\n')),
    },
    prompt: {
      get: () => prompts.current(),
      answer: ({ promptId, code }) => {
        if (!prompts.answer(promptId, code)) throw new PromptClosedError();
      },
      dismiss: () => prompts.dismiss(),
    },
    settings: {
      get: () => shell.settings(),
      update: (changes) => shell.updateSettings(changes),
    },
    app: {
      show: (view) => shell.showView(view),
    },
  };
}
