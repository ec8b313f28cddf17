import { sql } from 'kysely';
import type { Queryable } from './database.ts';

export interface Repository {
  id: string;
  owner: string;
  name: string;
  fullName: string;
  defaultBranch: string;
  installationId: string | null;
}

function toRepository(row: {
  id: string;
  owner: string;
  name: string;
  default_branch: string;
  installation_id: string | null;
}): Repository {
  return {
    id: row.id,
    owner: row.owner,
    name: row.name,
    fullName: `${row.owner}/${row.name}`,
    defaultBranch: row.default_branch,
    installationId: row.installation_id,
  };
}

/** Case-insensitive, as GitHub's names are. */
export async function findRepository(db: Queryable, owner: string, name: string): Promise<Repository | null> {
  const row = await db
    .selectFrom('repositories')
    .select(['id', 'owner', 'name', 'default_branch', 'installation_id'])
    .where(sql<boolean>`lower(owner) = lower(${owner}) AND lower(name) = lower(${name})`)
    .executeTakeFirst();
  return row ? toRepository(row) : null;
}

export async function ensureRepository(
  db: Queryable,
  repo: { owner: string; name: string; defaultBranch?: string; installationId?: string | null },
): Promise<Repository> {
  const existing = await findRepository(db, repo.owner, repo.name);
  if (existing) return existing;
  await db
    .insertInto('repositories')
    .values({
      owner: repo.owner,
      name: repo.name,
      default_branch: repo.defaultBranch ?? 'main',
      installation_id: repo.installationId ?? null,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const created = await findRepository(db, repo.owner, repo.name);
  if (!created) throw new Error(`repository ${repo.owner}/${repo.name} could not be created`);
  return created;
}

export async function listRepositories(db: Queryable): Promise<Repository[]> {
  const rows = await db
    .selectFrom('repositories')
    .select(['id', 'owner', 'name', 'default_branch', 'installation_id'])
    .orderBy('owner')
    .orderBy('name')
    .execute();
  return rows.map(toRepository);
}
