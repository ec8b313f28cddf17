import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
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
  /** PostgreSQL schema to work in (tests give each file its own). */
  schema?: string | undefined;
}

export const defaultDataDir = './.trainyard/db';

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
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.maxConnections ?? 10,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    pool.on('error', () => {}); // an idle client dropped by the server is replaced on next use
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      pool,
      backend: 'postgres',
      location: redact(options.databaseUrl),
      close: () => db.destroy(),
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
    pglite = await PGlite.create(inMemory ? undefined : dataDir);
    const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 });
    await migrate(pool);
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    const instance = pglite;
    return {
      db,
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
