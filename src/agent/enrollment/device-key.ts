/**
 * The device's own key and the certificate request that carries its public half to the controller. The key
 * is made here (EC P-256, node's WebCrypto) and leaves this module only as PKCS#8 for the credential store;
 * the request holds the public key and a signature proving this device has the private one.
 */
import { X509Certificate, createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface DeviceKeyRequest {
  /** PKCS#8 PEM: stays on this device */
  privateKeyPem: string;
  /** PKCS#10 PEM: what is sent */
  csrPem: string;
}

/** A new key and a request signed with it; `commonName` is informational (the controller names the certificate). */
export async function createDeviceKeyRequest(commonName: string): Promise<DeviceKeyRequest> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${escapeDnValue(commonName)}`,
    keys,
    signingAlgorithm: ALGORITHM,
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as never));
  return {
    privateKeyPem: createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({
      type: 'pkcs8',
      format: 'pem',
    }) as string,
    csrPem: csr.toString('pem'),
  };
}

/** Whether the certificate certifies this private key (the controller may not swap in another key). */
export function certificateMatchesKey(certificatePem: string, privateKeyPem: string): boolean {
  const spki = (key: ReturnType<typeof createPublicKey>) => key.export({ type: 'spki', format: 'der' });
  try {
    const certified = new X509Certificate(certificatePem).publicKey;
    return spki(certified).equals(spki(createPublicKey(createPrivateKey(privateKeyPem))));
  } catch {
    return false;
  }
}

/** Whether `caPem` issued (signed) the certificate. */
export function issuedBy(certificatePem: string, caPem: string): boolean {
  try {
    const cert = new X509Certificate(certificatePem);
    const ca = new X509Certificate(caPem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
}

/** An identity id is a UUID, but a name could carry the characters a distinguished name treats specially. */
function escapeDnValue(value: string): string {
  return value.replace(/[,+"\\<>;=]/g, (c) => `\\${c}`);
}
