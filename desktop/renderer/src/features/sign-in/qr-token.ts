/**
 * What a scanned QR code means for "Enroll with a token". The console's enrollment QR
 * (console/src/pages/identities/sections/enrollment-section.tsx) holds the enrollment JWT itself, nothing
 * around it, so that is what is taken; anything else read from a QR gets a sentence saying what it is not.
 */
import { decodeEnrollmentJwt } from '../../../../../src/api/enrollment.js';

export type QrTokenReading = { ok: true; token: string } | { ok: false; problem: string };

/** How much of a foreign QR's text to show back, enough to recognise it. */
const PREVIEW_CHARS = 40;

const ASK_FOR_THE_RIGHT_CODE =
  'Open a picture of the enrollment QR code your administrator sent, or paste the token instead.';

export function tokenFromQrText(text: string): QrTokenReading {
  const token = text.trim();
  if (isEnrollmentJwt(token)) return { ok: true, token };
  // The likeliest mix-up: the MFA screen's QR is for an authenticator app, and looks the same.
  if (/^otpauth:\/\//i.test(token))
    return {
      ok: false,
      problem: `This QR code is for an authenticator app (MFA), not an enrollment token. ${ASK_FOR_THE_RIGHT_CODE}`,
    };
  if (!token)
    return {
      ok: false,
      problem: `This QR code is empty: it holds no enrollment token. ${ASK_FOR_THE_RIGHT_CODE}`,
    };
  return {
    ok: false,
    problem: `This QR code holds “${preview(token)}”, not an enrollment token. ${ASK_FOR_THE_RIGHT_CODE}`,
  };
}

function isEnrollmentJwt(text: string): boolean {
  try {
    decodeEnrollmentJwt(text);
    return true;
  } catch {
    return false;
  }
}

function preview(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > PREVIEW_CHARS ? `${oneLine.slice(0, PREVIEW_CHARS - 1)}…` : oneLine;
}
