/**
 * Whether what the user typed at a code prompt can be a code at all: six digits from an authenticator app,
 * or a recovery code (12 letters and digits, with or without the hyphens and spaces it is printed with).
 * Anything else (a command word, a stray line) is never sent, so it costs no attempt.
 */
export function looksLikeCode(text: string): boolean {
  const bare = text.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(bare) || /^[0-9A-Za-z]{12}$/.test(bare);
}

export const NOT_A_CODE_MESSAGE =
  'That is not a code: enter the 6 digits your authenticator app shows (or a recovery code); it cost no attempt.';
