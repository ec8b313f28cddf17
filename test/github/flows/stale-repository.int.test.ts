import { afterEach, describe, expect, it } from 'vitest';
import { RepositoryLookup } from '../../../app/github/translation/repository-lookup.ts';
import { saveInstalledRepository } from '../../../app/store/repositories.ts';
import { installRepository, startTrainyard, type Tester } from '../../support/trainyard-tester.ts';

/*
 * Crash test finding C6: a repository id that no transaction committed was kept by the process
 * (the repository lookup), and every step of the repository's next delivery failed on the
 * foreign key to it, retried with back-off for minutes until the lookup expired.
 */

let t: Tester;
afterEach(async () => {
  await t?.close();
});

class RolledBack extends Error {}

describe('a repository id from a rolled-back transaction', () => {
  it('does not outlive the rollback: the next delivery of the repository applies at once', async () => {
    // An hour: the lookup would otherwise hold the id far longer than this test runs.
    const repositories = new RepositoryLookup({ ttlMs: 3_600_000 });
    t = await startTrainyard({ repositories });
    const repo = installRepository(t, 'widgets', { 'README.md': 'hello\n' });
    await t.settle();
    const installed = await t.store.db.selectFrom('repositories').select(['id', 'github_id']).execute();
    expect(installed).toHaveLength(1);

    // The repository's row is gone; a transaction creates it again, the process keeps the new
    // row as a writer does, and the transaction rolls back.
    await t.store.db.deleteFrom('repositories').execute();
    let kept = '';
    await expect(
      t.store.db.transaction().execute(async (tx) => {
        const row = await saveInstalledRepository(tx, {
          githubId: repo.id,
          owner: repo.owner.login,
          name: repo.name,
          installationId: t.github.access.installationOf(repo, t.github.app.id)!.id,
          defaultBranch: 'main',
        });
        repositories.keep(row);
        kept = row.id;
        throw new RolledBack();
      }),
    ).rejects.toBeInstanceOf(RolledBack);
    expect((await repositories.find(t.store.db, repo.owner.login, repo.name))?.id).toBe(kept);

    const pr = t.github.openPullRequest(repo, { author: 'alice', title: 'One', files: { 'one.txt': '1\n' } });
    t.comment(repo, pr.number, '@trainyard queue');
    // No time passes: a retry that waits for its back-off would still be waiting after this.
    await t.settle();

    expect(await t.leftovers()).toMatchObject({ deliveries: 0 });
    const rows = await t.store.db.selectFrom('repositories').select(['id', 'github_id']).execute();
    expect(rows).toEqual([{ id: expect.not.stringMatching(`^${kept}$`), github_id: String(repo.id) }]);
    expect((await t.eventLines(repo)).slice(0, 2)).toEqual([
      `command.queue #${pr.number}`,
      `action.queue.enter #${pr.number}`,
    ]);
    const retried = await t.store.db
      .selectFrom('webhook_deliveries')
      .select(['attempts', 'last_error'])
      .where('attempts', '>', 1)
      .execute();
    // The first attempt met the stale id; the second, right after, applied.
    expect(retried.length).toBeGreaterThan(0);
    for (const delivery of retried) expect(delivery.attempts).toBe(2);
  });
});
