import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeTogether, type Store } from '../../app/store/database.ts';
import { openTestStore } from '../support/test-store.ts';

let store: Store;

beforeAll(async () => {
  store = await openTestStore();
  await sql`CREATE TABLE together_test (id int PRIMARY KEY, note text NOT NULL)`.execute(store.db);
});

afterAll(async () => {
  await store?.close();
});

const notes = async () =>
  (await sql<{ id: number; note: string }>`SELECT id, note FROM together_test ORDER BY id`.execute(store.db))
    .rows;

describe('executeTogether', () => {
  it('answers each statement in order, with its own parameters', async () => {
    const answers = await store.db
      .transaction()
      .execute((tx) =>
        executeTogether(tx, [
          sql`INSERT INTO together_test VALUES (${1}, ${"it's"}) RETURNING note`,
          sql`SELECT count(*)::int AS n FROM together_test`,
          sql`SELECT ${'$1'}::text AS text`,
        ]),
      );
    expect(answers.map((a) => a.rows)).toEqual([[{ note: "it's" }], [{ n: 1 }], [{ text: '$1' }]]);
    expect(await notes()).toEqual([{ id: 1, note: "it's" }]);
  });

  it('with commit, ends the transaction in the same round trip; nothing may follow', async () => {
    await store.db
      .transaction()
      .execute((tx) =>
        executeTogether(tx, [sql`INSERT INTO together_test VALUES (${2}, ${'two'})`], { commit: true }),
      );
    expect((await notes()).map((n) => n.id)).toEqual([1, 2]);
    await expect(
      store.db.transaction().execute(async (tx) => {
        await executeTogether(tx, [sql`INSERT INTO together_test VALUES (${3}, ${'three'})`], {
          commit: true,
        });
        await sql`INSERT INTO together_test VALUES (${4}, ${'four'})`.execute(tx);
      }),
    ).rejects.toThrow('the transaction was committed with the statements sent together last');
    expect((await notes()).map((n) => n.id)).toEqual([1, 2, 3]);
  });

  it('with commit, keeps nothing when a statement fails, and the connection goes on', async () => {
    await expect(
      store.db.transaction().execute(async (tx) => {
        await sql`INSERT INTO together_test VALUES (${5}, ${'five'})`.execute(tx);
        await executeTogether(
          tx,
          [
            sql`INSERT INTO together_test VALUES (${6}, ${'six'})`,
            sql`INSERT INTO together_test VALUES (${1}, ${'again'})`,
            sql`INSERT INTO together_test VALUES (${7}, ${'seven'})`,
          ],
          { commit: true },
        );
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await notes()).map((n) => n.id)).toEqual([1, 2, 3]);
    for (let i = 0; i < 3; i++) {
      await store.db.transaction().execute((tx) => executeTogether(tx, [sql`SELECT 1`], { commit: true }));
    }
  });
});
