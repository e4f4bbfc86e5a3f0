/**
 * Enrollment tokens ride in the query string (`/enroll?token=`), and the request line is logged before the
 * token is judged: the value must be masked however the client spells the key, as the server decodes it.
 */
import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../../controller/logger.js';

describe('redactUrl', () => {
  it.each([
    ['/enroll?method=ott&token=abc-123', '/enroll?method=ott&token=[redacted]'],
    ['/enroll?TOKEN=abc', '/enroll?TOKEN=[redacted]'],
    ['/enroll?method=ott&%74oken=abc', '/enroll?method=ott&%74oken=[redacted]'],
    ['/enroll?%54%4F%4B%45%4E=abc&x=1', '/enroll?%54%4F%4B%45%4E=[redacted]&x=1'],
    ['/enroll?token=a&token=b#frag', '/enroll?token=[redacted]&token=[redacted]#frag'],
  ])('masks %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it.each([
    '/edge/client/v1/services?filter=name%20contains%20%22token%22',
    '/enroll?tokens=abc',
    '/enroll?mytoken=abc',
    '/version',
    '/enroll?%E0%A4%A=1',
  ])('leaves %s as it is', (url) => {
    expect(redactUrl(url)).toBe(url);
  });
});
