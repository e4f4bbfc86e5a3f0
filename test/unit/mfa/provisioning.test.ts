import { describe, expect, it } from 'vitest';
import { base32Encode, provisioningUrl, qrCodePng } from '../../../controller/mfa/provisioning.js';

describe('base32Encode', () => {
  it('matches the RFC 4648 section 10 vectors, without padding', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'MY'],
      ['fo', 'MZXQ'],
      ['foo', 'MZXW6'],
      ['foob', 'MZXW6YQ'],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI'],
    ];
    for (const [input, output] of vectors) expect(base32Encode(Buffer.from(input))).toBe(output);
  });

  it('encodes a 20-byte secret in 32 characters', () => {
    expect(base32Encode(Buffer.alloc(20, 0xff))).toBe('7'.repeat(32));
  });
});

describe('provisioningUrl', () => {
  const secret = Buffer.from('12345678901234567890');

  it('has the issuer, the name, the secret and the algorithm parameters', () => {
    expect(provisioningUrl('Postern', 'alice', secret)).toBe(
      'otpauth://totp/Postern:alice?issuer=Postern&secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&algorithm=SHA1&digits=6&period=30',
    );
  });

  it('percent-encodes the label parts and the issuer, so spaces, colons and & cannot change the meaning', () => {
    const url = provisioningUrl('ACME Corp: VPN', 'Bob Smith:laptop&co?x=1/2', secret);
    expect(url.startsWith('otpauth://totp/ACME%20Corp%3A%20VPN:Bob%20Smith%3Alaptop%26co%3Fx%3D1%2F2?')).toBe(
      true,
    );
    const parsed = new URL(url);
    expect(parsed.host).toBe('totp');
    const [issuer, name] = parsed.pathname.slice(1).split(':').map(decodeURIComponent);
    expect([issuer, name]).toEqual(['ACME Corp: VPN', 'Bob Smith:laptop&co?x=1/2']);
    expect(parsed.searchParams.get('issuer')).toBe('ACME Corp: VPN');
    expect([...parsed.searchParams.keys()]).toEqual(['issuer', 'secret', 'algorithm', 'digits', 'period']);
  });
});

describe('qrCodePng', () => {
  it('is a PNG', async () => {
    const png = await qrCodePng('otpauth://totp/Postern:alice?secret=AAAA');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(256);
  });
});
