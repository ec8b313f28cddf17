import { findApiKeyBySecret, touchApiKey } from '../../store/api-keys.ts';
import type { Db } from '../../store/database.ts';
import { forbidden } from '../errors.ts';
import type { Credential } from './credentials.ts';
import type { GithubPermissions } from './github-permissions.ts';

export type Need = 'read' | 'write';

/** Who is acting, as events name it (SPEC.md's Actor). */
export interface Actor {
  type: 'application' | 'user';
  id: string | number;
  name: string;
}

/** A caller allowed on the repository; `actor()` names it, asking GitHub only when needed. */
export interface Principal {
  actor(): Promise<Actor>;
}

export interface AuthorizeContext {
  db: Db;
  github: GithubPermissions;
  now: () => Date;
}

const LAST_USED_RESOLUTION_MS = 5 * 60_000;

/**
 * Decides whether a credential may act on a repository. Every refusal is a 403 whose words
 * tell the caller what to fix, without saying whether the repository exists.
 */
export async function authorize(
  ctx: AuthorizeContext,
  credential: Credential,
  target: { owner: string; repository: string; need: Need },
): Promise<Principal> {
  if (credential.kind === 'invalid') throw forbidden(credential.reason);

  if (credential.kind === 'application_key') {
    const key = await findApiKeyBySecret(ctx.db, credential.secret);
    if (!key) throw forbidden('unknown application key');
    if (key.revokedAt) throw forbidden('this application key has been revoked');
    const ownerMatches = key.owner.toLowerCase() === target.owner.toLowerCase();
    const repoMatches =
      key.repository === null || key.repository.toLowerCase() === target.repository.toLowerCase();
    if (!ownerMatches || !repoMatches)
      throw forbidden('this application key is not valid for this repository');
    if (target.need === 'write' && key.role !== 'admin') {
      throw forbidden('this application key is read-only; pausing needs an admin key');
    }
    const now = ctx.now();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await touchApiKey(ctx.db, key.id, now);
    }
    const actor: Actor = { type: 'application', id: key.id, name: key.name };
    return { actor: async () => actor };
  }

  const access = await ctx.github.accessTo(credential.token, target.owner, target.repository);
  if (access === 'none') throw forbidden('GitHub does not grant this token access to this repository');
  if (target.need === 'write' && access !== 'write') {
    throw forbidden('this GitHub token has read access only; pausing needs push permission');
  }
  return {
    async actor() {
      // Installation tokens (ghs_) belong to an app installation, not to a user.
      if (credential.token.startsWith('ghs_'))
        return { type: 'application', id: 0, name: 'GitHub App installation' };
      const user = await ctx.github.userOf(credential.token);
      if (!user) throw forbidden('GitHub does not say who this token belongs to; use a user token');
      return { type: 'user', id: user.id, name: user.login };
    },
  };
}
