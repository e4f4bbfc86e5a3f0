/**
 * Where an enrolled device keeps its identity: the private key in the credential store (here the 0600 file
 * store the CLI falls back to), the public certificates in a 0600 file beside agent.json. Read back only
 * whole, for the controller it was enrolled with, and only when the certificate certifies the key.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadOrCreateControllerCa,
  type ControllerCa,
} from '../../../controller/platform/keys/controller-ca.js';
import { issueClientCertificate } from '../../../controller/enrollment/client-certificates.js';
import { FileCredentialStore } from '../../../src/agent/credentials/file-credential-store.js';
import { MemoryCredentialStore } from '../../../src/agent/credentials/memory-credential-store.js';
import { createDeviceKeyRequest } from '../../../src/agent/enrollment/device-key.js';
import {
  DEVICE_CERTIFICATE_FILE,
  DeviceIdentityStore,
  type DeviceIdentity,
} from '../../../src/agent/enrollment/device-identity.js';
import { ACCOUNTS } from '../../../src/agent/session/credential-vault.js';

const URL = 'https://controller.example:1280';
const dirs: string[] = [];
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'postern-device-'));
  dirs.push(dir);
  return dir;
};
let ca: ControllerCa;

beforeAll(async () => {
  ca = await loadOrCreateControllerCa(newDir(), false);
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function identity(identityId = 'identity-1'): Promise<DeviceIdentity> {
  const { privateKeyPem, csrPem } = await createDeviceKeyRequest(identityId);
  const { certPem } = await issueClientCertificate(ca, csrPem, identityId, new Date());
  return { controllerUrl: URL, identityId, privateKeyPem, certificatePem: certPem, caPem: ca.certPem };
}

async function saved(store: DeviceIdentityStore, device: DeviceIdentity): Promise<void> {
  await store.saveKey(device);
  store.saveCertificates(device);
}

describe('DeviceIdentityStore', () => {
  it('keeps the key in the credential store and the certificates beside agent.json, both 0600', async () => {
    const dir = newDir();
    const credentialsFile = join(dir, 'credentials.json');
    const store = new DeviceIdentityStore(new FileCredentialStore(credentialsFile, [ACCOUNTS.device]), dir);
    const device = await identity();
    await saved(store, device);

    const secrets = readFileSync(credentialsFile, 'utf8');
    expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(JSON.parse(secrets)[ACCOUNTS.device])).toEqual({
      controllerUrl: URL,
      identityId: 'identity-1',
      privateKeyPem: device.privateKeyPem,
    });
    const certificates = readFileSync(join(dir, DEVICE_CERTIFICATE_FILE), 'utf8');
    expect(statSync(join(dir, DEVICE_CERTIFICATE_FILE)).mode & 0o777).toBe(0o600);
    expect(certificates).not.toContain('PRIVATE KEY');
    expect(certificates).toContain(JSON.stringify(device.certificatePem));

    expect(await store.load(URL)).toEqual(device);
    expect(await store.load(`${URL}/`)).toEqual(device);
    expect(await store.load()).toEqual(device);
  });

  it('hands the identity to no other controller', async () => {
    const store = new DeviceIdentityStore(new MemoryCredentialStore(), newDir());
    await saved(store, await identity());
    expect(await store.load('https://other.example:1280')).toBeUndefined();
  });

  it('reads nothing from half an enrollment or halves that do not belong together', async () => {
    const credentials = new MemoryCredentialStore();
    const dir = newDir();
    const store = new DeviceIdentityStore(credentials, dir);
    const device = await identity();

    await store.saveKey(device);
    expect(await store.load()).toBeUndefined();
    expect(await store.hasKey()).toBe(true);

    // The certificates of another key (an enrollment of the same identity on another device).
    const other = await identity();
    store.saveCertificates(other);
    expect(await store.load()).toBeUndefined();

    store.saveCertificates({ ...device, identityId: 'identity-2' });
    expect(await store.load()).toBeUndefined();

    store.saveCertificates(device);
    expect(await store.load()).toEqual(device);

    // A key store that lost the key (the memory store in a new process) leaves the certificates alone useless.
    await credentials.delete(ACCOUNTS.device);
    expect(await store.load()).toBeUndefined();
  });

  it('deletes both halves', async () => {
    const credentials = new MemoryCredentialStore();
    const dir = newDir();
    const store = new DeviceIdentityStore(credentials, dir);
    await saved(store, await identity());
    expect(await store.delete()).toBe(true);
    expect(credentials.accounts()).toEqual([]);
    expect(() => statSync(join(dir, DEVICE_CERTIFICATE_FILE))).toThrow();
    expect(await store.delete()).toBe(false);
  });
});
