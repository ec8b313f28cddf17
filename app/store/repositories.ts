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

/**
 * The repository named `owner/name`, created when missing. Concurrent calls (the CLI, an
 * import, the app) all get the one row: the insert is an upsert on the name.
 */
export async function ensureRepository(
  db: Queryable,
  repo: { owner: string; name: string; defaultBranch?: string; installationId?: string | null },
): Promise<Repository> {
  const existing = await findRepository(db, repo.owner, repo.name);
  if (existing) return existing;
  // The no-op update makes a conflicting row come back too (DO NOTHING returns none).
  const { rows } = await sql<Parameters<typeof toRepository>[0]>`
    INSERT INTO repositories (owner, name, default_branch, installation_id)
    VALUES (${repo.owner}, ${repo.name}, ${repo.defaultBranch ?? 'main'}, ${repo.installationId ?? null}::bigint)
    ON CONFLICT (lower(owner), lower(name)) DO UPDATE SET owner = repositories.owner
    RETURNING id, owner, name, default_branch, installation_id`.execute(db);
  const row = rows[0];
  if (!row) throw new Error(`repository ${repo.owner}/${repo.name} could not be created`);
  return toRepository(row);
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

/** `owner/name` of each of these repositories (by primary key); a deleted one is left out. */
export async function findRepositoryNames(
  db: Queryable,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('repositories')
    .select(['id', 'owner', 'name'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [String(r.id), `${r.owner}/${r.name}`]));
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
 * another GitHub id (or none, when the row of `githubId` exists under another name) belongs to
 * a repository that was deleted or renamed away unseen. Its history would otherwise be served
 * as this repository's, so it goes. The row of `githubId` itself is never touched, whatever its
 * id: a concurrent save may have just written or adopted it (deleting it left a delivery
 * stepping a repository id that no longer existed).
 */
async function dropOtherHolder(db: Queryable, repo: GithubRepository): Promise<void> {
  await db
    .deleteFrom('repositories')
    .where(sql<boolean>`lower(owner) = lower(${repo.owner}) AND lower(name) = lower(${repo.name})`)
    .where(sql<boolean>`github_id IS DISTINCT FROM ${String(repo.githubId)}::bigint`)
    .execute();
}

/** A rename onto `to`: whichever other row still holds that name goes (see dropOtherHolder). */
async function freeNameFor(
  db: Queryable,
  to: { owner: string; name: string },
  keepId: string,
): Promise<void> {
  await db
    .deleteFrom('repositories')
    .where(sql<boolean>`lower(owner) = lower(${to.owner}) AND lower(name) = lower(${to.name})`)
    .where('id', '!=', keepId)
    .execute();
}

// Namespace of saveInstalledRepository's advisory locks (repository-lock.ts has 0x7472).
const SAVE_LOCK_CLASS = 0x7480;

/**
 * Installed, or installed again: the row is created, or takes the current name and installation.
 * Safe to run concurrently for one repository (its installation webhook and its first delivery
 * arrive together): such saves take turns, a row of that name without a GitHub id (made by the
 * CLI or an import) is adopted, and the write is an upsert on the GitHub id, so every caller
 * ends on the one row and none fails on a duplicate key.
 */
export async function saveInstalledRepository(
  db: Queryable,
  repo: GithubRepository & { installationId: number; defaultBranch: string },
): Promise<Repository> {
  return atomically(db, async (tx) => {
    const githubId = String(repo.githubId);
    // Saves of one repository (or onto one name) one after the other: the upsert alone does not
    // cover the name's unique index, which a concurrent insert of the same row can hit first.
    // Always the id first, then the name, so two saves never wait for each other in a cycle.
    await sql`SELECT pg_advisory_xact_lock(${SAVE_LOCK_CLASS}::int4, hashtext(${githubId})),
      pg_advisory_xact_lock(${SAVE_LOCK_CLASS + 1}::int4, hashtext(lower(${repo.owner}) || '/' || lower(${repo.name})))`.execute(
      tx,
    );
    // Adopted first, so dropOtherHolder keeps it. Names are unique, so there is at most one such
    // row; once it holds the id, a concurrent adoption finds none.
    await tx
      .updateTable('repositories')
      .set({ github_id: githubId })
      .where('github_id', 'is', null)
      .where(sql<boolean>`lower(owner) = lower(${repo.owner}) AND lower(name) = lower(${repo.name})`)
      .where(sql<boolean>`NOT EXISTS (SELECT 1 FROM repositories r WHERE r.github_id = ${githubId}::bigint)`)
      .execute();
    await dropOtherHolder(tx, repo);
    const row = await tx
      .insertInto('repositories')
      .values({
        owner: repo.owner,
        name: repo.name,
        github_id: githubId,
        installation_id: String(repo.installationId),
        default_branch: repo.defaultBranch,
      })
      .onConflict((oc) =>
        oc.column('github_id').doUpdateSet((eb) => ({
          owner: eb.ref('excluded.owner'),
          name: eb.ref('excluded.name'),
          installation_id: eb.ref('excluded.installation_id'),
          default_branch: eb.ref('excluded.default_branch'),
        })),
      )
      .returning(columns)
      .executeTakeFirstOrThrow();
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
    await freeNameFor(tx, change.to, existing.id);
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
