import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { MfaService } from './mfa-service.js';
import { MfaDataUnreadable, SecretBox } from './secret-box.js';
import {
  MASTER_KEY_ENV,
  loadOrCreateKeyFile,
  parseMasterKey,
  readExistingKeyFile,
} from '../platform/keys/master-key.js';
import { registerSharedRoutes } from './shared-routes.js';
import { registerManagementRoutes } from './management-routes.js';

/**
 * MFA TOTP's entry points: `installMfa` makes the controller's one MFA service at start (composition hands it
 * to both APIs' routes, so the attempt limits count every try whichever API it came through); the route
 * functions add its endpoints.
 */
export interface InstalledMfa {
  service: MfaService;
  close(): void;
}

export async function installMfa(ctx: ControllerContext): Promise<InstalledMfa> {
  // Read once, at start: a malformed key stops the start rather than the first enrollment.
  const envKey = process.env[MASTER_KEY_ENV]?.trim();
  const fromEnv = envKey ? parseMasterKey(envKey) : undefined;
  const checked = await checkMasterKey(ctx, fromEnv);
  const box = new SecretBox(
    () => checked ?? fromEnv ?? loadOrCreateKeyFile(ctx.config.dataDir, (message) => ctx.log.warn(message)),
  );
  const service = new MfaService(ctx, box);
  const purge = (identityId: string) => service.purge(identityId);
  ctx.events.on('identity.deleted', purge);
  return {
    service,
    close() {
      ctx.events.off('identity.deleted', purge);
    },
  };
}

/** Routes both APIs serve for the current identity: /authenticate/mfa and /current-identity/mfa*. */
export function registerMfaSharedRoutes(app: Api, service: MfaService): void {
  registerSharedRoutes(app, service);
}

/** Management API: admin removal of an identity's MFA, the MFA audit log. */
export function registerMfaManagementRoutes(app: Api, ctx: ControllerContext, service: MfaService): void {
  registerManagementRoutes(app, ctx, service);
}

/**
 * When MFA secrets are stored, the master key must exist and open them, or the controller does not start:
 * found at the first MFA login instead, every secret would be unreadable and a fresh key would make it
 * permanent. Answers the proven key, or undefined when nothing is stored yet (the key is made on first use).
 */
async function checkMasterKey(
  ctx: ControllerContext,
  fromEnv: Buffer | undefined,
): Promise<Buffer | undefined> {
  const stored = await ctx.store.mfa.sample();
  if (!stored) return undefined;
  const key = fromEnv ?? readExistingKeyFile(ctx.config.dataDir, (message) => ctx.log.warn(message));
  try {
    new SecretBox(() => key).open(stored.sealedSecret, stored.identityId, 'totp-secret');
  } catch (err) {
    if (!(err instanceof MfaDataUnreadable)) throw err;
    throw new Error(
      `the master key (${fromEnv ? MASTER_KEY_ENV : 'master.key in the data folder'}) does not open the MFA secrets stored in the database; ` +
        'restore the key the secrets were sealed with (from a backup) and start again',
    );
  }
  return key;
}
