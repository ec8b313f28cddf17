import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Queryable } from './database.ts';
import { type Repository, toRepository } from './repositories.ts';

export type KeyRole = 'read' | 'admin';

export interface ApiKey {
  id: string;
  name: string;
  owner: string;
  /** null: every repository of the owner. */
  repository: string | null;
  role: KeyRole;
  hint: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export const API_KEY_PREFIX = 'ty_';

/** Keys carry 32 random bytes, so a fast hash is enough: nothing to brute-force. */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

type KeyRow = {
  id: string;
  name: string;
  owner: string;
  repository: string | null;
  role: KeyRole;
  key_hint: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
};

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    repository: row.repository,
    role: row.role,
    hint: row.key_hint,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

const keyColumns = [
  'id',
  'name',
  'owner',
  'repository',
  'role',
  'key_hint',
  'created_at',
  'revoked_at',
  'last_used_at',
] as const;

/** Creates a key; the secret is returned once and never stored. */
export async function createApiKey(
  db: Queryable,
  input: { name: string; owner: string; repository: string | null; role: KeyRole; now: Date },
): Promise<{ key: ApiKey; secret: string }> {
  const secret = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const row = await db
    .insertInto('api_keys')
    .values({
      id: randomUUID(),
      name: input.name,
      owner: input.owner,
      repository: input.repository,
      role: input.role,
      key_hash: hashApiKey(secret),
      key_hint: `${secret.slice(0, 7)}…${secret.slice(-4)}`,
      created_at: input.now,
    })
    .returning(keyColumns)
    .executeTakeFirstOrThrow();
  return { key: toApiKey(row), secret };
}

export async function listApiKeys(db: Queryable): Promise<ApiKey[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(keyColumns)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toApiKey);
}

/** Revokes by id; true when a live key was revoked. */
export async function revokeApiKey(db: Queryable, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The key a secret belongs to, revoked or not (the caller tells the two apart). */
export async function findApiKeyBySecret(db: Queryable, secret: string): Promise<ApiKey | null> {
  const row = await db
    .selectFrom('api_keys')
    .select(keyColumns)
    .where('key_hash', '=', hashApiKey(secret))
    .executeTakeFirst();
  return row ? toApiKey(row) : null;
}

/** A key and the repository a request names, found together (see {@link findKeyAndRepository}). */
export interface KeyAndRepository {
  key: ApiKey;
  /** The repository `owner/name` names (case-insensitively), whether or not the key may see it. */
  repository: Repository | null;
}

/**
 * The key a secret belongs to (revoked or not) and the repository a request names, in one
 * round trip: every authenticated request needs both, and two statements cost twice the
 * latency. The caller must check the key before it reveals anything about the repository.
 */
export async function findKeyAndRepository(
  db: Queryable,
  secret: string,
  owner: string,
  name: string,
): Promise<KeyAndRepository | null> {
  const { rows } = await sql<
    KeyRow & {
      repository_id: string | null;
      repository_owner: string | null;
      repository_name: string | null;
      repository_default_branch: string | null;
      repository_installation_id: string | null;
    }
  >`
    SELECT k.id, k.name, k.owner, k.repository, k.role, k.key_hint, k.created_at, k.revoked_at,
      k.last_used_at, r.id AS repository_id, r.owner AS repository_owner, r.name AS repository_name,
      r.default_branch AS repository_default_branch, r.installation_id AS repository_installation_id
    FROM api_keys k
    LEFT JOIN repositories r ON lower(r.owner) = lower(${owner}) AND lower(r.name) = lower(${name})
    WHERE k.key_hash = ${hashApiKey(secret)}`.execute(db);
  const row = rows[0];
  if (!row) return null;
  return {
    key: toApiKey(row),
    repository:
      row.repository_id === null
        ? null
        : toRepository({
            id: row.repository_id,
            owner: row.repository_owner!,
            name: row.repository_name!,
            default_branch: row.repository_default_branch!,
            installation_id: row.repository_installation_id,
          }),
  };
}

export async function touchApiKey(db: Queryable, id: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}
