/**
 * Where a service is reached on this device: the tunnel's loopback addresses, each with Copy, so the user
 * can paste it into a browser or client. What happened is announced.
 */
import { useState } from 'react';
import { messageOf, postern } from '../../lib/postern.js';

export function LocalAddresses({ service, addresses }: { service: string; addresses: string[] }) {
  const [status, setStatus] = useState<string | null>(null);
  if (addresses.length === 0) return null;
  const copy = (address: string) => () =>
    void postern.services.copyAddress({ address }).then(
      () => setStatus(`Copied ${address}.`),
      (error: unknown) => setStatus(messageOf(error)),
    );
  return (
    <div className="local-addresses">
      <span className="hint">On this device:</span>
      <ul aria-label={`Local addresses of ${service}`}>
        {addresses.map((address) => (
          <li key={address}>
            <code>{address}</code>
            <button
              type="button"
              className="secondary small"
              aria-label={`Copy ${address}`}
              onClick={copy(address)}
            >
              Copy
            </button>
          </li>
        ))}
      </ul>
      <span role="status" className="hint">
        {status}
      </span>
    </div>
  );
}
