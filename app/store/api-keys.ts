import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from './database.ts';

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

export async function touchApiKey(db: Queryable, id: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}
