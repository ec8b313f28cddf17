import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../app/store/database.ts';
import { loadPause, savePause } from '../../app/store/pauses.ts';
import {
  detachRepository,
  ensureRepository,
  findRepository,
  listRepositories,
  removeRepository,
  renameRepository,
  saveInstalledRepository,
} from '../../app/store/repositories.ts';
import { backend, openTestStore } from '../support/test-store.ts';

let store: Store;

beforeAll(async () => {
  store = await openTestStore();
});

afterAll(async () => {
  await store?.close();
});

beforeEach(async () => {
  await store.db.deleteFrom('repositories').execute();
});

const widgets = { githubId: 4242, owner: 'acme', name: 'widgets' };
const install = (repo = widgets, extra: { installationId?: number; defaultBranch?: string } = {}) =>
  saveInstalledRepository(store.db, {
    ...repo,
    installationId: extra.installationId ?? 77,
    defaultBranch: extra.defaultBranch ?? 'main',
  });
const names = async () => (await listRepositories(store.db)).map((r) => r.fullName);
const githubIdOf = async (id: string) =>
  (await store.db.selectFrom('repositories').select('github_id').where('id', '=', id).executeTakeFirst())
    ?.github_id;
const pause = (repositoryId: string) =>
  savePause(store.db, repositoryId, {
    reason: 'release',
    by: { type: 'user', id: 1, name: 'alice' },
    now: new Date('2026-11-02T09:00:00Z'),
  });

describe(`repositories as GitHub changes them (${backend})`, () => {
  it('an installed repository is created with its installation and default branch', async () => {
    const repository = await install(widgets, { defaultBranch: 'trunk' });
    expect(repository).toMatchObject({
      owner: 'acme',
      name: 'widgets',
      fullName: 'acme/widgets',
      defaultBranch: 'trunk',
      installationId: '77',
    });
    expect(await githubIdOf(repository.id)).toBe('4242');
  });

  it('installing again keeps the row (and its history) and takes the new installation', async () => {
    const first = await install();
    await pause(first.id);
    const again = await install(widgets, { installationId: 78, defaultBranch: 'develop' });
    expect(again.id).toBe(first.id);
    expect(again).toMatchObject({ installationId: '78', defaultBranch: 'develop' });
    expect(await loadPause(store.db, first.id)).not.toBeNull();
  });

  it('a row the CLI created before installation is adopted, not duplicated', async () => {
    const imported = await ensureRepository(store.db, { owner: 'Acme', name: 'Widgets' });
    const installed = await install();
    expect(installed.id).toBe(imported.id);
    expect(await names()).toEqual(['acme/widgets']);
  });

  it('a repository renamed while the app was away takes its new name when installed again', async () => {
    const first = await install();
    const back = await install({ ...widgets, name: 'gizmos' });
    expect(back.id).toBe(first.id);
    expect(await names()).toEqual(['acme/gizmos']);
  });

  it("a name now held by another GitHub repository: the old holder's row goes", async () => {
    const old = await install({ githubId: 1, owner: 'acme', name: 'widgets' });
    await pause(old.id);
    const reused = await install({ githubId: 2, owner: 'acme', name: 'widgets' });
    expect(reused.id).not.toBe(old.id);
    expect(await githubIdOf(reused.id)).toBe('2');
    expect(await names()).toEqual(['acme/widgets']);
    expect(await loadPause(store.db, old.id)).toBeNull();
  });

  it('renamed: found by GitHub id, the history stays with it', async () => {
    const repository = await install();
    await pause(repository.id);
    const renamed = await renameRepository(store.db, {
      githubId: 4242,
      from: { owner: 'acme', name: 'widgets' },
      to: { owner: 'acme', name: 'gizmos' },
    });
    expect(renamed).toMatchObject({ id: repository.id, fullName: 'acme/gizmos' });
    expect(await findRepository(store.db, 'acme', 'widgets')).toBeNull();
    expect(await loadPause(store.db, repository.id)).not.toBeNull();
  });

  it('transferred: a new owner', async () => {
    await install();
    const moved = await renameRepository(store.db, {
      githubId: 4242,
      from: { owner: 'acme', name: 'widgets' },
      to: { owner: 'acme-labs', name: 'widgets' },
    });
    expect(moved?.fullName).toBe('acme-labs/widgets');
  });

  it('renamed, known only by its old name (created by the CLI): found by name and given its id', async () => {
    const imported = await ensureRepository(store.db, { owner: 'acme', name: 'widgets' });
    const renamed = await renameRepository(store.db, {
      githubId: 4242,
      from: { owner: 'acme', name: 'widgets' },
      to: { owner: 'acme', name: 'gizmos' },
    });
    expect(renamed?.id).toBe(imported.id);
    expect(await githubIdOf(imported.id)).toBe('4242');
  });

  it('renamed onto a name a stale row still holds: the stale row goes', async () => {
    await install({ githubId: 1, owner: 'acme', name: 'gizmos' });
    const repository = await install();
    await renameRepository(store.db, {
      githubId: 4242,
      from: { owner: 'acme', name: 'widgets' },
      to: { owner: 'acme', name: 'gizmos' },
    });
    expect(await findRepository(store.db, 'acme', 'gizmos')).toMatchObject({ id: repository.id });
    expect(await names()).toEqual(['acme/gizmos']);
  });

  it('renaming a repository Trainyard does not know changes nothing', async () => {
    await install();
    const renamed = await renameRepository(store.db, {
      githubId: 9999,
      from: { owner: 'other', name: 'thing' },
      to: { owner: 'other', name: 'stuff' },
    });
    expect(renamed).toBeNull();
    expect(await names()).toEqual(['acme/widgets']);
  });

  it('uninstalled: no installation any more, the history stays', async () => {
    const repository = await install();
    await pause(repository.id);
    expect(await detachRepository(store.db, widgets)).toBe(true);
    expect(await findRepository(store.db, 'acme', 'widgets')).toMatchObject({ installationId: null });
    expect(await loadPause(store.db, repository.id)).not.toBeNull();
  });

  it('deleted from GitHub: the repository and what hangs on it go', async () => {
    const repository = await install();
    await pause(repository.id);
    expect(await removeRepository(store.db, widgets)).toBe(true);
    expect(await names()).toEqual([]);
    expect(await loadPause(store.db, repository.id)).toBeNull();
  });

  it('removing or detaching an unknown repository is not an error', async () => {
    expect(await removeRepository(store.db, widgets)).toBe(false);
    expect(await detachRepository(store.db, widgets)).toBe(false);
  });

  describe('concurrent saves of one repository (its installation webhook and its first delivery)', () => {
    const rounds = 8;
    const callers = 6;
    /** Every caller gets the one row that exists afterwards: no duplicate-key error, no id deleted behind a caller. */
    async function expectOneRow(saved: PromiseSettledResult<{ id: string }>[]) {
      const errors = saved.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
      expect(errors).toEqual([]);
      const rows = await listRepositories(store.db);
      expect(rows).toHaveLength(1);
      const ids = saved.map((s) => (s as PromiseFulfilledResult<{ id: string }>).value.id);
      expect(new Set(ids)).toEqual(new Set([rows[0]!.id]));
      return rows[0]!;
    }
    const installAll = (repo = widgets) =>
      Promise.allSettled(Array.from({ length: callers }, () => install(repo)));

    it('installed from scratch', async () => {
      for (let round = 0; round < rounds; round++) {
        await store.db.deleteFrom('repositories').execute();
        await expectOneRow(await installAll());
      }
    });

    it('adopting a row the CLI created', async () => {
      for (let round = 0; round < rounds; round++) {
        await store.db.deleteFrom('repositories').execute();
        const imported = await ensureRepository(store.db, { owner: 'acme', name: 'widgets' });
        const row = await expectOneRow(await installAll());
        expect(row.id).toBe(imported.id);
        expect(await githubIdOf(row.id)).toBe('4242');
      }
    });

    it('taking the name from a stale holder, whose row goes', async () => {
      for (let round = 0; round < rounds; round++) {
        await store.db.deleteFrom('repositories').execute();
        const stale = await install({ githubId: 1, owner: 'acme', name: 'widgets' });
        const row = await expectOneRow(await installAll());
        expect(row.id).not.toBe(stale.id);
        expect(await githubIdOf(row.id)).toBe('4242');
      }
    });

    it('ensured by name (CLI, import) at the same time', async () => {
      for (let round = 0; round < rounds; round++) {
        await store.db.deleteFrom('repositories').execute();
        await expectOneRow(
          await Promise.allSettled(
            Array.from({ length: callers }, () =>
              ensureRepository(store.db, { owner: 'acme', name: 'widgets' }),
            ),
          ),
        );
      }
    });
  });

  it('works inside a caller transaction', async () => {
    const repository = await store.db
      .transaction()
      .execute((tx) =>
        saveInstalledRepository(tx, { ...widgets, installationId: 77, defaultBranch: 'main' }),
      );
    expect(await findRepository(store.db, 'acme', 'widgets')).toMatchObject({ id: repository.id });
  });
});
