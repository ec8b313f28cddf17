import { describe, expect, it } from 'vitest';
import { describeFailure, redactSecrets } from '../../../app/github/client/failure-text.ts';

describe('describeFailure', () => {
  it('gives the name and message of an error', () => {
    expect(describeFailure(new TypeError('fetch failed'))).toBe('TypeError: fetch failed');
    expect(describeFailure('just text')).toBe('thrown: just text');
  });

  it.each([
    ['an installation token', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['a personal token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['a fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop'],
    ['a JWT', 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxMjM0NSJ9.c2lnbmF0dXJl'],
  ])('blanks out %s', (_name, secret) => {
    const text = describeFailure(new Error(`request with ${secret} refused`));
    expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });

  it('blanks out authorization values and URL passwords, keeping what they were', () => {
    expect(redactSecrets('Authorization: Bearer abc.def-ghi_jkl')).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('token 0123456789abcdef')).toBe('token [redacted]');
    expect(redactSecrets('postgresql://app:hunter22@db:5432/x')).toBe(
      'postgresql://app:[redacted]@db:5432/x',
    );
  });

  it('cuts long messages to 1,000 characters', () => {
    const text = describeFailure(new Error('x'.repeat(5_000)));
    expect(text).toHaveLength(1_000);
    expect(text.endsWith('…')).toBe(true);
  });
});
