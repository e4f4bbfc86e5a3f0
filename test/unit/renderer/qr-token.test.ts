/**
 * What a scanned QR code gives the enrollment form: the enrollment JWT the console encodes, taken as it is
 * (spaces around it dropped); an authenticator app's code, a web address, or an empty code refused with a
 * sentence that says what it is and what to open instead.
 */
import { describe, expect, it } from 'vitest';
import { tokenFromQrText } from '../../../desktop/renderer/src/features/sign-in/qr-token.js';
import { signedEnrollmentJwt } from './enrollment-qr.js';

describe('tokenFromQrText', () => {
  it('takes the enrollment JWT, as the console encodes it', async () => {
    const jwt = await signedEnrollmentJwt();
    expect(tokenFromQrText(jwt)).toEqual({ ok: true, token: jwt });
    expect(tokenFromQrText(`\n ${jwt}\r\n`)).toEqual({ ok: true, token: jwt });
  });

  it('takes an expired token too: the form says when it expired', async () => {
    const jwt = await signedEnrollmentJwt({ exp: 1_000_000_000 });
    expect(tokenFromQrText(jwt)).toEqual({ ok: true, token: jwt });
  });

  it("refuses the MFA screen's authenticator code by name", () => {
    const reading = tokenFromQrText('otpauth://totp/Postern:alice?secret=JBSWY3DPEHPK3PXP&issuer=Postern');
    expect(reading).toEqual({
      ok: false,
      problem:
        'This QR code is for an authenticator app (MFA), not an enrollment token. Open a picture of the enrollment QR code your administrator sent, or paste the token instead.',
    });
  });

  it('refuses other text, quoting the start of it', () => {
    const reading = tokenFromQrText('https://intranet.example.com/welcome?campaign=spring-2026&lang=en');
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.problem).toBe(
      'This QR code holds “https://intranet.example.com/welcome?ca…”, not an enrollment token. Open a picture of the enrollment QR code your administrator sent, or paste the token instead.',
    );
  });

  it('refuses a JWT that is not an enrollment one', () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const login = `${part({ alg: 'ES256' })}.${part({ sub: 'alice', exp: 2_000_000_000 })}.c2ln`;
    const reading = tokenFromQrText(login);
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.problem).toMatch(/^This QR code holds “eyJ.*”, not an enrollment token\./);
  });

  it('refuses an empty code', () => {
    expect(tokenFromQrText('  ')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^This QR code is empty/),
    });
  });
});
