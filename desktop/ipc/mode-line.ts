/** The mode line the tray and the services view show, worded once for both. */
import type { ModeView } from './views.js';

/** `Proxy mode: the Postern service is not installed`, `Intercept mode: the Postern service, pid 812`. */
export function modeLine(mode: ModeView): string {
  return `${mode.mode === 'intercept' ? 'Intercept mode' : 'Proxy mode'}: ${mode.why}`;
}
