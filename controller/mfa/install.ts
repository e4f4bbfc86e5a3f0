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
 * MFA TOTP's entry points: `installMfa` wires enrollment state into the controller once at start; the
 * route functions add its endpoints. One service per context, shared by both APIs' routes, so the
 * attempt limits count every try whichever API it came through.
 */
const services = new WeakMap<ControllerContext, MfaService>();

function serviceOf(ctx: ControllerContext): MfaService {
  const service = services.get(ctx);
  if (!service) throw new Error('installMfa(ctx) must run before the MFA routes are registered');
  return service;
}

export async function installMfa(ctx: ControllerContext): Promise<{ close(): void }> {
  // Read once, at start: a malformed key stops the start rather than the first enrollment.
  const envKey = process.env[MASTER_KEY_ENV]?.trim();
  const fromEnv = envKey ? parseMasterKey(envKey) : undefined;
  const checked = await checkMasterKey(ctx, fromEnv);
  const box = new SecretBox(
    () => checked ?? fromEnv ?? loadOrCreateKeyFile(ctx.config.dataDir, (message) => ctx.log.warn(message)),
  );
  const service = new MfaService(ctx, box);
  services.set(ctx, service);

  ctx.isMfaEnrolled = (identityId) => ctx.store.mfa.isVerified(identityId);
  ctx.mfaEnrolledAmong = (identityIds) => ctx.store.mfa.verifiedAmong(identityIds);
  const purge = (identityId: string) => service.purge(identityId);
  ctx.events.on('identity.deleted', purge);
  return {
    close() {
      ctx.events.off('identity.deleted', purge);
      services.delete(ctx);
    },
  };
}

/** Routes both APIs serve for the current identity: /authenticate/mfa and /current-identity/mfa*. */
export function registerMfaSharedRoutes(app: Api, ctx: ControllerContext): void {
  registerSharedRoutes(app, serviceOf(ctx));
}

/** Management API: admin removal of an identity's MFA, the MFA audit log. */
export function registerMfaManagementRoutes(app: Api, ctx: ControllerContext): void {
  registerManagementRoutes(app, ctx, serviceOf(ctx));
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
