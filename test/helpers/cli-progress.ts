/**
 * The progress lines the controller client has the agent and admin CLIs print while they wait (docs/AGENT.md,
 * "No silent waits"): a controller that has not answered in 2 s is named once, and a retry wait over 1 s says
 * how long and why. On a loaded machine a controller can take that long to answer any request, so a test that
 * holds a CLI's standard error to exact text compares it with these lines taken out, and only these: every
 * other line (and a changed wording of these) still fails the comparison.
 */

/** `postern-agent warning: still waiting for the controller at http://127.0.0.1:1280` (or postern-admin) */
const STILL_WAITING = /^postern-(?:agent|admin) warning: still waiting for the controller at \S+$/;
/** `postern-agent warning: too many failed sign-ins; wait 29 s, then trying again` */
const RETRY_WAIT = /^postern-(?:agent|admin) warning: .+; wait \d+ s, then trying again$/;

/** `stderr` without the waiting lines; everything else exactly as printed. */
export function withoutProgress(stderr: string): string {
  return stderr
    .split(/(?<=\n)/)
    .filter((line) => {
      const text = line.replace(/\n$/, '');
      return !STILL_WAITING.test(text) && !RETRY_WAIT.test(text);
    })
    .join('');
}
