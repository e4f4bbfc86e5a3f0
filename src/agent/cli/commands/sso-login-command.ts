/**
 * `login --sso [NAME]`: sign in through an identity provider the controller accepts (an external JWT signer).
 * Where the provider's discovery offers the device grant, the user is given a URL and a code to enter on any
 * device; else the URL of the authorization code flow (PKCE) to open in a browser on this machine, whose
 * redirect comes back to a loopback port here. The provider's tokens are kept in the credential store.
 */
import { CliError, EXIT, type ExitCode } from '../cli-errors.js';
import { controllerUrlOf, createAgent, type CliContext } from '../cli-context.js';
import { OidcRelyingParty } from '../../sso/oidc-relying-party.js';
import { pickSigner, usableSigners } from '../../sso/provider-signer.js';
import { signInWithBrowser, signInWithDevice } from '../../sso/provider-sign-in.js';
import { agentCommand } from '../command-name.js';

export async function ssoLoginCommand(ctx: CliContext): Promise<ExitCode> {
  const controllerUrl = controllerUrlOf(ctx);
  const agent = await createAgent(ctx);
  try {
    const signers = usableSigners(await agent.api.listExternalJwtSigners());
    const name = ctx.args.words[0];
    const signer = pickSigner(signers, name);
    if (!signer) {
      const names = signers.map((s) => s.name).join(', ') || 'none';
      throw new CliError(
        name
          ? `no identity provider named '${name}' (this controller offers: ${names})`
          : `name the identity provider: ${agentCommand('login --sso NAME')} (this controller offers: ${names})`,
        EXIT.usage,
      );
    }
    const rp = await OidcRelyingParty.discover(signer);
    const t = ctx.terminal;
    const tokens = rp.offersDeviceGrant
      ? await signInWithDevice(rp, (prompt) =>
          t.print(
            `To sign in with ${signer.name}, open ${prompt.verificationUriComplete ?? prompt.verificationUri}` +
              ` and enter the code ${prompt.userCode}`,
          ),
        )
      : await signInWithBrowser(rp, (url) =>
          t.print(`To sign in with ${signer.name}, open this URL here:\n${url}`),
        );
    const status = await agent.provider.adopt(rp, tokens);
    await ctx.settingsFile.update({ controllerUrl });
    t.print(
      `Signed in to ${controllerUrl} with ${signer.name}${status.identityName ? ` as ${status.identityName}` : ''}.`,
    );
    if (status.state === 'needs-totp')
      throw new CliError('signed in, but no authenticator code was entered', EXIT.mfa);
    return EXIT.ok;
  } finally {
    await agent.stop();
  }
}
