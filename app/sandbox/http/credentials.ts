import type { GithubAppInfo } from '../entities.ts';
import { GithubError } from '../github-error.ts';

/** What an Authorization header carries: `token X` / `Bearer X`, either a token or an app's JWT. */
export function readAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** GitHub accepts app JWTs valid for at most ten minutes (plus a little clock drift). */
const maxJwtLifetimeSeconds = 10 * 60 + 60;

/**
 * Checks an app JWT the way GitHub would, except the RSA signature (the sandbox does not know
 * the app's public key): three base64url parts, RS256, `iss` naming the app, `iat` before `exp`,
 * a lifetime of at most ten minutes. Expiry is not compared with any clock, because the app signs
 * with the wall clock and the sandbox may run on virtual time.
 */
export function checkAppJwt(jwt: string, app: GithubAppInfo): void {
  const undecodable = () => new GithubError(401, 'A JSON web token could not be decoded');
  const parts = jwt.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) throw undecodable();
  const decode = (part: string): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {}
    throw undecodable();
  };
  const header = decode(parts[0]!);
  const claims = decode(parts[1]!);
  if (header['alg'] !== 'RS256') throw undecodable();
  const { iss, iat, exp } = claims;
  if (typeof iat !== 'number' || typeof exp !== 'number') {
    throw new GithubError(
      401,
      "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued.",
    );
  }
  if (exp <= iat || exp - iat > maxJwtLifetimeSeconds) {
    throw new GithubError(401, "'Expiration time' claim ('exp') is too far in the future");
  }
  if (String(iss) !== String(app.id) && iss !== `Iv1.${app.slug}`)
    throw new GithubError(401, 'Integration not found');
}
