import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the sandbox keeps the private key of its GitHub App, next to sandbox.json. */
export const APP_KEY_FILE = 'sandbox-app.private-key.pem';

/**
 * The sandbox app's private key: made once and kept, so that a restarted app signs with the
 * same key. The sandbox checks a JWT's form, not its signature (it has no public key to
 * check with), but the app must hold a real RSA key for Probot to sign with. PKCS#1, the form
 * GitHub hands out.
 */
export function loadOrCreateAppKey(dataDir: string): string {
  const path = join(dataDir, APP_KEY_FILE);
  if (existsSync(path)) return readFileSync(path, 'utf8');
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  // `wx`: two processes starting at once must not each write a different key.
  try {
    writeFileSync(path, privateKey, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(path, 'utf8');
    throw error;
  }
  return privateKey;
}
