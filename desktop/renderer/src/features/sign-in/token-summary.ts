/**
 * What a pasted enrollment token says, read in the renderer before anything is sent, so the user sees the
 * controller it names (and what it will set up) first. Only a reading: main checks its signature against that
 * controller before using it.
 */
import { decodeEnrollmentJwt, type EnrollmentMethod } from '../../../../../src/api/enrollment.js';

export type TokenSummary =
  | {
      ok: true;
      controllerUrl: string;
      method: EnrollmentMethod;
      expiresAt: Date;
      expired: boolean;
      username?: string;
    }
  | { ok: false; problem: string };

export function summariseToken(text: string, now: number): TokenSummary | null {
  const token = text.trim();
  if (!token) return null;
  try {
    const { claims } = decodeEnrollmentJwt(token);
    const expiresAt = new Date(claims.exp * 1000);
    const username = (claims as { username?: unknown }).username;
    return {
      ok: true,
      controllerUrl: claims.iss,
      method: claims.em,
      expiresAt,
      expired: expiresAt.getTime() <= now,
      ...(typeof username === 'string' ? { username } : {}),
    };
  } catch {
    return {
      ok: false,
      problem: 'This is not an enrollment token. Paste the whole token your administrator sent.',
    };
  }
}
