/**
 * How to write a command in a message so the user can type it: `npm run agent -- mfa enroll` where the CLI
 * runs from a checkout (its entry point is a .ts file run by tsx; there is no `postern-agent` on the PATH),
 * `postern-agent mfa enroll` where it runs as the built bin.
 */
const fromCheckout = (): boolean => /\.ts$/.test(process.argv[1] ?? '');

export function agentCommand(words: string): string {
  return fromCheckout() ? `\`npm run agent -- ${words}\`` : `\`postern-agent ${words}\``;
}

export function adminCommand(words: string): string {
  return fromCheckout() ? `\`npm run admin -- ${words}\`` : `\`postern-admin ${words}\``;
}
