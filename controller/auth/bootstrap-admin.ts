import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { privateFile } from '../store/data-folder.js';
import { join } from 'node:path';
import type { ControllerContext } from '../platform/context.js';
import { hashPassword } from './passwords.js';

export interface BootstrapResult {
  created: boolean;
  /** set only when the password was generated here (to be printed once) */
  generatedPassword?: string;
  passwordFile?: string;
}

export const ADMIN_USERNAME = 'admin';

/**
 * On an empty store, creates the default admin (`admin`). Its password comes from POSTERN_ADMIN_PASSWORD,
 * or is generated and written to `<dataDir>/admin-password` with mode 0600 so only the owner can read it.
 */
export async function bootstrapAdmin(
  ctx: ControllerContext,
  envPassword: string | undefined,
): Promise<BootstrapResult> {
  if ((await ctx.store.identities.count()) > 0) return { created: false };
  const generated = envPassword ? undefined : randomBytes(18).toString('base64url');
  const password = envPassword ?? generated!;
  if (password.length < 5) throw new Error('POSTERN_ADMIN_PASSWORD must be at least 5 characters');
  const now = ctx.clock.now();
  const identityId = randomUUID();
  // Hashed before the transaction: it takes a tenth of a second, and the store waits for nothing slow.
  const passwordHash = await hashPassword(password);
  const created = await ctx.store.transaction(async () => {
    // Asked again where it counts: another controller on the same database may have made it meanwhile.
    if ((await ctx.store.identities.count()) > 0) return false;
    await ctx.store.identities.create({
      id: identityId,
      name: 'Default Admin',
      type: 'User',
      isAdmin: true,
      isDefaultAdmin: true,
      roleAttributes: [],
      authPolicyId: 'default',
      externalId: null,
      disabled: false,
      tags: {},
      createdAt: now,
      updatedAt: now,
    });
    await ctx.store.authenticators.create({
      id: randomUUID(),
      identityId,
      method: 'updb',
      username: ADMIN_USERNAME,
      passwordHash,
      createdAt: now,
      updatedAt: now,
    });
    return true;
  });
  if (!created) return { created: false };
  if (!generated) return { created: true };
  const passwordFile = join(ctx.config.dataDir, 'admin-password');
  writeFileSync(passwordFile, `${generated}\n`, { mode: 0o600 });
  privateFile(passwordFile); // the mode above applies only to a file that did not exist
  return { created: true, generatedPassword: generated, passwordFile };
}
