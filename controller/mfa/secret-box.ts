import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Seals MFA secrets and recovery codes with AES-256-GCM before they reach the store.
 *
 * - The key is derived with HKDF from the master key (master-key.ts), so the master key can protect other
 *   things later without two uses sharing one AES key.
 * - The associated data binds each ciphertext to its identity and purpose: a secret copied to another
 *   identity's row, or a recovery code moved into the secret column, fails to open instead of working.
 * - Layout: version (1 byte) | IV (12 random bytes) | tag (16) | ciphertext. The version byte leaves room
 *   for a key rotation that can tell old rows from new.
 */
export type SealPurpose = 'totp-secret' | 'recovery-code';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

export class MfaDataUnreadable extends Error {
  constructor() {
    super(
      'Stored MFA data cannot be decrypted: the master key (master.key or POSTERN_MASTER_KEY) is not the one it was sealed with',
    );
  }
}

export class SecretBox {
  private key: Buffer | undefined;

  /** `masterKey` is called on first use only, so a controller that never sees MFA creates no key file. */
  constructor(private readonly masterKey: () => Buffer) {}

  seal(plaintext: Buffer, identityId: string, purpose: SealPurpose): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.aesKey(), iv);
    cipher.setAAD(associatedData(identityId, purpose));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** Throws `MfaDataUnreadable` when the data was tampered with, moved, or sealed under another key. */
  open(sealed: Buffer, identityId: string, purpose: SealPurpose): Buffer {
    if (sealed.length < HEADER_BYTES || sealed[0] !== VERSION) throw new MfaDataUnreadable();
    const decipher = createDecipheriv('aes-256-gcm', this.aesKey(), sealed.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(associatedData(identityId, purpose));
    decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, HEADER_BYTES));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]);
    } catch {
      throw new MfaDataUnreadable();
    }
  }

  sealText(text: string, identityId: string, purpose: SealPurpose): Buffer {
    return this.seal(Buffer.from(text, 'utf8'), identityId, purpose);
  }

  openText(sealed: Buffer, identityId: string, purpose: SealPurpose): string {
    return this.open(sealed, identityId, purpose).toString('utf8');
  }

  private aesKey(): Buffer {
    this.key ??= Buffer.from(
      hkdfSync('sha256', this.masterKey(), Buffer.alloc(0), 'postern/mfa/aes-256-gcm/v1', 32),
    );
    return this.key;
  }
}

const associatedData = (identityId: string, purpose: SealPurpose) =>
  Buffer.from(`postern/mfa/v1/${purpose}/${identityId}`, 'utf8');
