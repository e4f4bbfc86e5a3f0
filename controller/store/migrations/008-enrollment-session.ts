/**
 * 8: the API session that started an unfinished MFA enrollment. Only that session may read the secret and
 * recovery codes or verify; another session of the same identity (a stolen token, say) sees that an
 * enrollment is pending and nothing more.
 */
export const enrollmentSession = `
ALTER TABLE mfa_enrollments ADD COLUMN started_by TEXT;
`;
