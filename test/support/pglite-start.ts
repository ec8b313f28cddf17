import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

/*
 * Most of a new PGlite's start-up is initdb (a whole cluster made in WebAssembly) and compiling
 * PGlite's WebAssembly module; the tests open a new database per file or per test. So the tests' databases
 * start from one data directory fresh from initdb, made once and kept on disk (keyed by
 * PGlite's version, so a new PGlite makes a new one), and the module is compiled once per
 * process. What comes after initdb is unchanged: openStore still runs every migration on each
 * database.
 */

const require = createRequire(import.meta.url);
const pgliteDist = dirname(require.resolve('@electric-sql/pglite'));
const pgliteVersion = (
  JSON.parse(readFileSync(join(pgliteDist, '../package.json'), 'utf8')) as { version: string }
).version;
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const templateFile = join(root, 'node_modules/.cache/trainyard-test', `pglite-${pgliteVersion}-initdb.tar`);

// A global of the language that @types/node leaves undeclared as a value; its one function used here.
const wasm = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }
).WebAssembly;

interface Kit {
  template: Uint8Array;
  module: WebAssembly.Module;
}
const cacheKey = Symbol.for('trainyard.test.pglite-start');

async function makeTemplate(): Promise<Uint8Array> {
  if (existsSync(templateFile)) return readFileSync(templateFile);
  const pglite = await PGlite.create();
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const bytes = new Uint8Array(await dump.arrayBuffer());
  // Test files start side by side: each writes its own file, and the rename is atomic.
  mkdirSync(dirname(templateFile), { recursive: true });
  const partial = `${templateFile}.${process.pid}.partial`;
  writeFileSync(partial, bytes);
  renameSync(partial, templateFile);
  return bytes;
}

async function kit(): Promise<Kit> {
  const holder = globalThis as { [cacheKey]?: Promise<Kit> };
  holder[cacheKey] ??= (async () => ({
    template: await makeTemplate(),
    module: await wasm.compile(readFileSync(join(pgliteDist, 'pglite.wasm'))),
  }))();
  return holder[cacheKey];
}

/** PGlite options for a new test database: from the initdb template, on the compiled module. */
export async function pgliteStart(): Promise<PGliteOptions> {
  const { template, module } = await kit();
  return { loadDataDir: new Blob([template]), pgliteWasmModule: module };
}

/** For a data directory that may already hold a database (reopened): the template only when empty. */
export async function pgliteStartIn(dataDir: string): Promise<PGliteOptions> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return { pgliteWasmModule: (await kit()).module };
  return pgliteStart();
}
