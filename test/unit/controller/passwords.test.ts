import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../../controller/auth/passwords.js';

describe('password hashing', () => {
  it('verifies the right password only, with a fresh salt per hash and no clear text stored', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(a).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsE', a)).toBe(false);
    expect(await verifyPassword('correct horse', 'plain$text')).toBe(false);
  });
});
