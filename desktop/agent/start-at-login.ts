/** "Start at login" as the desktop settings see it; each OS's implementation lives with the Electron shell. */
export interface StartAtLogin {
  isEnabled(): Promise<boolean>;
  setEnabled(enabled: boolean): Promise<void>;
}
