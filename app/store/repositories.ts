import { sql } from 'kysely';
import type { Db, Queryable } from './database.ts';

export interface Repository {
  id: string;
  owner: string;
  name: string;
  fullName: string;
  defaultBranch: string;
  installationId: string | null;
}

export function toRepository(row: {
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

/** GitHub's identity of a repository: its id survives renames and transfers, its name does not. */
export interface GithubRepository {
  githubId: number;
  owner: string;
  name: string;
}

const columns = ['id', 'owner', 'name', 'default_branch', 'installation_id'] as const;

/** Several statements that must apply together: in the caller's transaction, or in one of their own. */
function atomically<T>(db: Queryable, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : (db as Db).transaction().execute(work);
}

/**
 * The row of a GitHub repository: by GitHub id, else a row of that name that no GitHub id
 * claims yet (created by the CLI or an import before the app was installed).
 */
async function findByGithubId(db: Queryable, repo: GithubRepository) {
  const byId = await db
    .selectFrom('repositories')
    .select(columns)
    .where('github_id', '=', String(repo.githubId))
    .executeTakeFirst();
  if (byId) return byId;
  return db
    .selectFrom('repositories')
    .select(columns)
    .where('github_id', 'is', null)
    .where(sql<boolean>`lower(owner) = lower(${repo.owner}) AND lower(name) = lower(${repo.name})`)
    .executeTakeFirst();
}

/**
 * GitHub says `owner/name` is now repository `githubId`: a row still holding that name under
 * another id belongs to a repository that was deleted or renamed away unseen. Its history
 * would otherwise be served as this repository's, so it goes.
 */
async function dropOtherHolder(db: Queryable, repo: GithubRepository, keepId: string | null): Promise<void> {
  let query = db
    .deleteFrom('repositories')
    .where(sql<boolean>`lower(owner) = lower(${repo.owner}) AND lower(name) = lower(${repo.name})`);
  if (keepId !== null) query = query.where('id', '!=', keepId);
  await query.execute();
}

/** Installed, or installed again: the row is created, or takes the current name and installation. */
export async function saveInstalledRepository(
  db: Queryable,
  repo: GithubRepository & { installationId: number; defaultBranch: string },
): Promise<Repository> {
  return atomically(db, async (tx) => {
    const existing = await findByGithubId(tx, repo);
    await dropOtherHolder(tx, repo, existing?.id ?? null);
    const values = {
      owner: repo.owner,
      name: repo.name,
      github_id: String(repo.githubId),
      installation_id: String(repo.installationId),
      default_branch: repo.defaultBranch,
    };
    const row = existing
      ? await tx
          .updateTable('repositories')
          .set(values)
          .where('id', '=', existing.id)
          .returning(columns)
          .executeTakeFirstOrThrow()
      : await tx.insertInto('repositories').values(values).returning(columns).executeTakeFirstOrThrow();
    return toRepository(row);
  });
}

/** Renamed or transferred on GitHub; null when Trainyard does not know the repository. */
export async function renameRepository(
  db: Queryable,
  change: { githubId: number; from: { owner: string; name: string }; to: { owner: string; name: string } },
): Promise<Repository | null> {
  return atomically(db, async (tx) => {
    const existing = await findByGithubId(tx, { githubId: change.githubId, ...change.from });
    if (!existing) return null;
    await dropOtherHolder(tx, { githubId: change.githubId, ...change.to }, existing.id);
    const row = await tx
      .updateTable('repositories')
      .set({ owner: change.to.owner, name: change.to.name, github_id: String(change.githubId) })
      .where('id', '=', existing.id)
      .returning(columns)
      .executeTakeFirstOrThrow();
    return toRepository(row);
  });
}

/**
 * The app was uninstalled from the repository: it can no longer act there, but the event log
 * and statistics stay readable (and resume if it is installed again). False when unknown.
 */
export async function detachRepository(db: Queryable, repo: GithubRepository): Promise<boolean> {
  const existing = await findByGithubId(db, repo);
  if (!existing) return false;
  await db.updateTable('repositories').set({ installation_id: null }).where('id', '=', existing.id).execute();
  return true;
}

/** The repository was deleted from GitHub: its state, events and statistics go too. False when unknown. */
export async function removeRepository(db: Queryable, repo: GithubRepository): Promise<boolean> {
  const existing = await findByGithubId(db, repo);
  if (!existing) return false;
  await db.deleteFrom('repositories').where('id', '=', existing.id).execute();
  return true;
}
