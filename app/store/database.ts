import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type RawBuilder,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import { migrate } from './migrate.ts';
import type { Tables } from './tables.ts';

export type Db = Kysely<Tables>;
export type Tx = Transaction<Tables>;
/** Anything queries can run on: the database or a transaction. */
export type Queryable = Db | Tx;

export interface Store {
  readonly db: Db;
  /**
   * Where the webhook endpoint stores deliveries: on PostgreSQL a few connections of their own,
   * so that acknowledging a delivery (GitHub waits at most 10 s) never queues behind processing
   * for a pooled connection. On PGlite (one connection) the same as `db`.
   */
  readonly inboxDb: Db;
  /**
   * Where the v1 API reads: on PostgreSQL connections of their own whose statements are
   * cancelled after `readTimeoutMs` (statement_timeout, SQLSTATE 57014), so no request holds
   * the database for long. On PGlite the same as `db`: PGlite has no statement timeout, and
   * the API's reads there are bounded by what a request may ask (periods, pages, filters).
   */
  readonly readDb: Db;
  readonly pool: pg.Pool;
  readonly backend: 'pglite' | 'postgres';
  /** Where the data lives, without credentials: for logs. */
  readonly location: string;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** PostgreSQL connection string; when absent, PGlite in `dataDir`. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` for a throw-away in-memory database. */
  dataDir?: string | undefined;
  /** Largest number of PostgreSQL connections (ignored on PGlite, which has one). */
  maxConnections?: number;
  /** PostgreSQL connections of the webhook inbox, beside `maxConnections` (see Store.inboxDb). */
  inboxConnections?: number;
  /** PostgreSQL connections of the API's reads (see Store.readDb), beside the others. */
  readConnections?: number;
  /** statement_timeout of the API's reads on PostgreSQL, in ms (default 2,000). */
  readTimeoutMs?: number;
  /** PostgreSQL schema to work in (tests give each file its own). */
  schema?: string | undefined;
  /**
   * More PGlite options: tests start each database from one data directory made once
   * (`loadDataDir`) with WebAssembly modules compiled once, instead of running initdb each time.
   */
  pglite?: PGliteOptions | undefined;
}

export const defaultDataDir = './.trainyard/db';

/** How long one statement of an API read may run on PostgreSQL (Store.readDb). */
export const DEFAULT_READ_TIMEOUT_MS = 2_000;

/** PostgreSQL's SQLSTATE for a statement cancelled, by statement_timeout among others. */
export const QUERY_CANCELED = '57014';

/**
 * A statement whose SQL text starts with this comment runs as a named prepared statement:
 * parsed and planned once per connection, then only bound and run. For the large statements
 * run again and again with new parameters, such as appending events and their projections,
 * whose parsing and planning would otherwise weigh on every append (figures in
 * docs/decisions/0005-prepared-statements-for-appends.md).
 */
export const PREPARED_MARK = '/* prepared */';

// The texts of the queries that carry statements for executeTogether to the pool's client (as
// their one parameter); they are never sent to the database.
const TOGETHER = '/* together */';
const TOGETHER_THEN_COMMIT = '/* together, then commit */';

/**
 * Runs statements in a transaction without waiting for each answer before sending the next:
 * node-postgres's pipeline mode, on for the connections of a store's `db`. Each statement goes
 * with its parameters (extended protocol); the answers come back in order, in one round trip
 * rather than one each. A statement that fails aborts the transaction, so those after it fail
 * too; the first error is thrown once every answer is in. Kysely's transaction sends one
 * statement at a time, hence this way to its connection.
 *
 * With `commit`, the transaction's COMMIT goes last, in the same round trip: the transaction
 * ends there (as a rollback when a statement failed, whose error is thrown). The COMMIT that
 * Kysely sends once the transaction's function returns, or its ROLLBACK when it throws, is then
 * answered without being sent; any other statement on the transaction is refused.
 */
export async function executeTogether(
  tx: Tx,
  statements: readonly RawBuilder<unknown>[],
  options: { commit?: boolean } = {},
): Promise<{ rows: unknown[] }[]> {
  const compiled = statements.map((statement) => statement.compile(tx));
  const text = options.commit === true ? TOGETHER_THEN_COMMIT : TOGETHER;
  return (await tx.executeQuery<{ rows: unknown[] }>(CompiledQuery.raw(text, compiled))).rows;
}

/**
 * Kysely's view of a pool: clients that prepare the statements marked {@link PREPARED_MARK} and
 * run those of {@link executeTogether} together.
 */
function preparingPool(pool: pg.Pool): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  // One name per text: pg prepares it on a connection the first time it runs there. The texts
  // are few (the app's statements), so their names are kept rather than hashed at every run.
  const names = new Map<string, string>();
  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (name === undefined) {
      name = `ty_${createHash('sha1').update(text).digest('base64url')}`;
      if (names.size < 10_000) names.set(text, name);
    }
    return name;
  };
  const run = (client: pg.PoolClient, text: string, values: unknown[]): Promise<pg.QueryResult> =>
    text.startsWith(PREPARED_MARK)
      ? client.query({ name: nameOf(text), text, values })
      : client.query(text, values);
  // Clients whose transaction executeTogether committed, until Kysely ends it too.
  const ended = new WeakSet<pg.PoolClient>();
  const together = async (client: pg.PoolClient, statements: readonly CompiledQuery[], commit: boolean) => {
    const sent = statements.map((s) => run(client, s.sql, [...s.parameters]));
    if (commit) {
      sent.push(client.query('COMMIT'));
      ended.add(client);
    }
    const answers = await Promise.allSettled(sent);
    const failed = answers.find((a) => a.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const rows = answers
      .slice(0, statements.length)
      .map((a) => ({ rows: (a as PromiseFulfilledResult<pg.QueryResult>).value.rows }));
    return { command: 'SELECT', rowCount: rows.length, rows };
  };
  const afterCommit = async (client: pg.PoolClient, text: string) => {
    if (text !== 'commit' && text !== 'rollback') {
      throw new Error('the transaction was committed with the statements sent together last');
    }
    ended.delete(client);
    return { command: text.toUpperCase(), rowCount: 0, rows: [] };
  };
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    query: ((text: string, values: unknown[] = []) =>
      ended.has(client)
        ? afterCommit(client, text)
        : text === TOGETHER || text === TOGETHER_THEN_COMMIT
          ? together(client, values as CompiledQuery[], text === TOGETHER_THEN_COMMIT)
          : run(client, text, values)) as unknown as PostgresPoolClient['query'],
    release: () => {
      ended.delete(client);
      client.release();
    },
  });
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres (unparseable DATABASE_URL)';
  }
}

/** Opens the store on PostgreSQL or PGlite and brings its schema up to date. */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  if (options.databaseUrl) {
    const connect = (max: number, settings: string[] = [], pipeline = false) => {
      if (options.schema) settings.push(`-c search_path=${options.schema}`);
      const pool = new pg.Pool({
        connectionString: options.databaseUrl,
        max,
        pipeline,
        ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
      });
      pool.on('error', () => {}); // an idle client dropped by the server is replaced on next use
      // A connection lost while checked out (PostgreSQL restarted, the network cut) fails its
      // queries, and pg also emits 'error' on the client, which has no listener then: without
      // this one the process would crash. The pool drops the broken client when it is released.
      pool.on('connect', (client) => client.on('error', () => {}));
      return pool;
    };
    // Pipeline mode for executeTogether (step transactions); the other pools need none.
    const pool = connect(options.maxConnections ?? 20, [], true);
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
    const inboxDb = new Kysely<Tables>({
      dialect: new PostgresDialect({ pool: preparingPool(connect(options.inboxConnections ?? 4)) }),
    });
    const readTimeoutMs = Math.max(1, Math.floor(options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS));
    const readDb = new Kysely<Tables>({
      dialect: new PostgresDialect({
        pool: preparingPool(connect(options.readConnections ?? 6, [`-c statement_timeout=${readTimeoutMs}`])),
      }),
    });
    return {
      db,
      inboxDb,
      readDb,
      pool,
      backend: 'postgres',
      location: redact(options.databaseUrl),
      async close() {
        await Promise.all([db.destroy(), inboxDb.destroy(), readDb.destroy()]);
      },
    };
  }

  const dataDir = options.dataDir ?? defaultDataDir;
  const inMemory = dataDir.startsWith('memory://');
  let lock: DataDirLock | undefined;
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true });
    lock = acquireDataDirLock(`${resolve(dataDir)}.lock`);
  }
  let pglite: PGlite | undefined;
  try {
    pglite = await PGlite.create(inMemory ? undefined : dataDir, options.pglite);
    const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1, pipeline: true });
    await migrate(pool);
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
    const instance = pglite;
    return {
      db,
      inboxDb: db,
      readDb: db,
      pool,
      backend: 'pglite',
      location: inMemory ? 'PGlite (in memory)' : `PGlite at ${resolve(dataDir)}`,
      async close() {
        await db.destroy();
        await instance.close();
        lock?.release();
      },
    };
  } catch (error) {
    await pglite?.close().catch(() => {});
    lock?.release();
    throw error;
  }
}
