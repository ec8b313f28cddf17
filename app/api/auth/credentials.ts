/** What an `Authorization` header holds, before anything is looked up. */
export type Credential =
  | { kind: 'application_key'; secret: string }
  | { kind: 'github_token'; token: string }
  | { kind: 'invalid'; reason: string };

const githubTokenPrefixes = ['ghp_', 'github_pat_', 'gho_', 'ghu_', 'ghs_'];

export function parseCredential(header: string | undefined): Credential {
  if (header === undefined || header.trim() === '') {
    return { kind: 'invalid', reason: 'missing Authorization header: send "Authorization: Bearer <token>"' };
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1])
    return { kind: 'invalid', reason: 'malformed Authorization header: expected "Bearer <token>"' };
  const token = match[1];
  if (token.startsWith('ty_')) return { kind: 'application_key', secret: token };
  if (githubTokenPrefixes.some((p) => token.startsWith(p))) return { kind: 'github_token', token };
  return { kind: 'invalid', reason: 'unknown token: expected a Trainyard application key or a GitHub token' };
}
