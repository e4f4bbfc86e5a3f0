/**
 * How the agent trusts the controller's TLS certificate: the system's CAs (default), a private CA bundle
 * (`--controller-ca`), or the SHA-256 fingerprint a controller with a self-signed certificate printed at its start
 * (`--controller-fingerprint`). A pinned connection is checked when its handshake completes, before the
 * request it carries is sent; a mismatch ends it with CERT_FINGERPRINT_MISMATCH. An enrolled device also
 * presents its client certificate in every handshake, which is how it signs in (`/authenticate?method=cert`).
 */
import https from 'node:https';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { normaliseFingerprint } from '../api/data-plane.js';

export interface ControllerTrust {
  /** PEM CA bundle to trust for a controller with a private CA */
  ca?: string | Buffer;
  /** SHA-256 fingerprint of the controller's own certificate (hex, colons optional) */
  fingerprint?: string;
  /** the device's enrolled certificate and its key (PEM), presented to the controller */
  clientCertificate?: { cert: string; key: string };
}

export class FingerprintMismatch extends Error {
  readonly code = 'CERT_FINGERPRINT_MISMATCH';
  constructor(presented: string) {
    super(`the controller presented a certificate with fingerprint ${presented}, not the pinned one`);
  }
}

/** An https.Agent that trusts the controller as told. */
export function controllerHttpsAgent(trust: ControllerTrust, options: https.AgentOptions = {}): https.Agent {
  // The agent's options reach every connection it makes, the pinned one's included.
  const withCertificate = trust.clientCertificate
    ? { ...options, cert: trust.clientCertificate.cert, key: trust.clientCertificate.key }
    : options;
  if (!trust.fingerprint)
    return new https.Agent({ ...withCertificate, ...(trust.ca ? { ca: trust.ca } : {}) });
  return new PinnedAgent(normaliseFingerprint(trust.fingerprint), withCertificate);
}

class PinnedAgent extends https.Agent {
  constructor(
    private readonly pinned: string,
    options: https.AgentOptions,
  ) {
    // No resumed TLS sessions: every connection shows its certificate to be checked.
    super({ ...options, maxCachedSessions: 0 });
  }

  override createConnection(options: tls.ConnectionOptions): Duplex {
    // The certificate is self-signed, so a CA check says nothing; the pin below says everything.
    const socket = tls.connect({ ...options, rejectUnauthorized: false });
    socket.once('secureConnect', () => {
      const presented = normaliseFingerprint(socket.getPeerCertificate().fingerprint256 ?? '');
      if (presented !== this.pinned) socket.destroy(new FingerprintMismatch(presented));
    });
    return socket;
  }
}
