/**
 * This device's enrolled identity: the private key made here, the client certificate the controller's CA
 * issued for it, and that CA. The key is a secret and goes to the credential store (the keychain, or the
 * 0600 file where there is none), account `agent-device`. The certificates are public and go to a 0600 JSON
 * file beside agent.json: with them the whole identity would not fit Windows' Credential Manager, which
 * holds at most 2,560 bytes a secret. The two halves are written in that order and read only together, tied
 * by the controller URL and by the certificate certifying the key.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CredentialStore } from '../credentials/credential-store.js';
import { ACCOUNTS, sameController } from '../session/credential-vault.js';
import { certificateMatchesKey } from './device-key.js';
import { parseStoredRecord } from '../credentials/stored-record.js';

export interface DeviceIdentity {
  controllerUrl: string;
  /** the identity's id on the controller (the certificate's common name) */
  identityId: string;
  /** PEM; what sign-in presents */
  certificatePem: string;
  /** PKCS#8 PEM; made on this device and never sent anywhere */
  privateKeyPem: string;
  /** PEM; the controller CA that issued the certificate */
  caPem: string;
}

/** What the TLS layer presents: the certificate and its key. */
export interface ClientCertificate {
  cert: string;
  key: string;
}

export const DEVICE_CERTIFICATE_FILE = 'device-certificate.json';

interface StoredKey {
  controllerUrl: string;
  identityId: string;
  privateKeyPem: string;
}

interface StoredCertificates {
  controllerUrl: string;
  identityId: string;
  certificatePem: string;
  caPem: string;
}

export class DeviceIdentityStore {
  /** `configDir`: the folder of agent.json, where the certificates are kept */
  constructor(
    private readonly credentials: CredentialStore,
    configDir: string,
  ) {
    this.certificateFile = join(configDir, DEVICE_CERTIFICATE_FILE);
  }

  readonly certificateFile: string;

  /** The identity enrolled with `controllerUrl` (any controller when omitted), whole and consistent, or none. */
  async load(controllerUrl?: string): Promise<DeviceIdentity | undefined> {
    const key = parseStoredRecord<StoredKey>(await this.credentials.get(ACCOUNTS.device), [
      'controllerUrl',
      'identityId',
      'privateKeyPem',
    ]);
    if (!key || (controllerUrl && !sameController(key.controllerUrl, controllerUrl))) return undefined;
    const certs = parseStoredRecord<StoredCertificates>(this.readCertificateFile(), [
      'controllerUrl',
      'identityId',
      'certificatePem',
      'caPem',
    ]);
    if (
      !certs ||
      !sameController(certs.controllerUrl, key.controllerUrl) ||
      certs.identityId !== key.identityId
    )
      return undefined;
    if (!certificateMatchesKey(certs.certificatePem, key.privateKeyPem)) return undefined;
    return { ...certs, privateKeyPem: key.privateKeyPem };
  }

  /** Whether a key is stored at all, complete or not (an enrollment cut short leaves one). */
  async hasKey(): Promise<boolean> {
    return (await this.credentials.get(ACCOUNTS.device)) !== undefined;
  }

  /**
   * The key first: it is the part that may fail (no keychain, a full disk) and the part that cannot be made
   * again, so a caller stores it before spending a one-time token on the certificate.
   */
  async saveKey(
    identity: Pick<DeviceIdentity, 'controllerUrl' | 'identityId' | 'privateKeyPem'>,
  ): Promise<void> {
    const { controllerUrl, identityId, privateKeyPem } = identity;
    await this.credentials.set(
      ACCOUNTS.device,
      JSON.stringify({ controllerUrl, identityId, privateKeyPem } satisfies StoredKey),
    );
  }

  /** The certificates that complete the stored key. */
  saveCertificates(identity: Omit<DeviceIdentity, 'privateKeyPem'>): void {
    const { controllerUrl, identityId, certificatePem, caPem } = identity;
    const stored: StoredCertificates = { controllerUrl, identityId, certificatePem, caPem };
    mkdirSync(dirname(this.certificateFile), { recursive: true, mode: 0o700 });
    const temporary = `${this.certificateFile}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.certificateFile);
  }

  /** Removes the key and the certificates; resolves whether there was a key. */
  async delete(): Promise<boolean> {
    const removed = await this.credentials.delete(ACCOUNTS.device);
    rmSync(this.certificateFile, { force: true });
    return removed;
  }

  private readCertificateFile(): string | undefined {
    try {
      return readFileSync(this.certificateFile, 'utf8');
    } catch {
      return undefined;
    }
  }
}

export const clientCertificateOf = (identity: DeviceIdentity): ClientCertificate => ({
  cert: identity.certificatePem,
  key: identity.privateKeyPem,
});
