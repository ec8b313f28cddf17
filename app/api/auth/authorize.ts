import type { Actor } from '../../../shared/schemas/event-parts.schema.ts';
import { findKeyAndRepository, touchApiKey } from '../../store/api-keys.ts';
import type { Db } from '../../store/database.ts';
import { findRepository, type Repository } from '../../store/repositories.ts';
import { forbidden } from '../errors.ts';
import type { Credential } from './credentials.ts';
import type { GithubPermissions } from './github-permissions.ts';
import type { KeyCache } from './key-cache.ts';

export type Need = 'read' | 'write';

/** A caller allowed on the repository; `actor()` names it, asking GitHub only when needed. */
export interface Principal {
  actor(): Promise<Actor>;
}

/** A credential allowed on a repository, and that repository (null: not known here). */
export interface Authorization {
  principal: Principal;
  repository: Repository | null;
}

export interface AuthorizeContext {
  db: Db;
  github: GithubPermissions;
  /** Reuses application key lookups for a few seconds (a revocation takes effect within that). */
  keys: KeyCache;
  now: () => Date;
}

const LAST_USED_RESOLUTION_MS = 5 * 60_000;

/**
 * Decides whether a credential may act on a repository, and only then says whether the
 * repository is known. Every refusal is a 403 whose words tell the caller what to fix,
 * without saying whether the repository exists.
 */
export async function authorize(
  ctx: AuthorizeContext,
  credential: Credential,
  target: { owner: string; repository: string; need: Need },
): Promise<Authorization> {
  if (credential.kind === 'invalid') throw forbidden(credential.reason);

  if (credential.kind === 'application_key') {
    // The key and the repository in one round trip, or none within the cache's few seconds
    // (the repository is not revealed unless the key passes every check below).
    const found = await ctx.keys.lookup(credential.secret, target.owner, target.repository, () =>
      findKeyAndRepository(ctx.db, credential.secret, target.owner, target.repository),
    );
    if (!found) throw forbidden('unknown application key');
    const { key } = found;
    if (key.revokedAt) throw forbidden('this application key has been revoked');
    const ownerMatches = key.owner.toLowerCase() === target.owner.toLowerCase();
    const repoMatches =
      key.repository === null || key.repository.toLowerCase() === target.repository.toLowerCase();
    if (!ownerMatches || !repoMatches)
      throw forbidden('this application key is not valid for this repository');
    if (target.need === 'write' && key.role !== 'admin') {
      throw forbidden(
        'this application key is read-only; changing the queue (pause, dequeue, scheduled freezes) needs an admin key',
      );
    }
    const now = ctx.now();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await touchApiKey(ctx.db, key.id, now);
      key.lastUsedAt = now; // and so in the cached lookup: the next requests do not write again
    }
    const actor: Actor = { type: 'application', id: key.id, name: key.name };
    return { principal: { actor: async () => actor }, repository: found.repository };
  }

  const access = await ctx.github.accessTo(credential.token, target.owner, target.repository);
  if (access === 'none') throw forbidden('GitHub does not grant this token access to this repository');
  if (target.need === 'write' && access !== 'write') {
    throw forbidden(
      'this GitHub token has read access only; changing the queue (pause, dequeue, scheduled freezes) needs push permission',
    );
  }
  const principal: Principal = {
    async actor() {
      // Installation tokens (ghs_) belong to an app installation, not to a user.
      if (credential.token.startsWith('ghs_'))
        return { type: 'application', id: 0, name: 'GitHub App installation' };
      const user = await ctx.github.userOf(credential.token);
      if (!user) throw forbidden('GitHub does not say who this token belongs to; use a user token');
      return { type: 'user', id: user.id, name: user.login };
    },
  };
  return { principal, repository: await findRepository(ctx.db, target.owner, target.repository) };
}
