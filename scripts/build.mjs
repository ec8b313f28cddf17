// Compiles app/ and shared/ to dist/ (`npm run build`); with --if-stale (the `prestart` script,
// run by `npm start`), only when dist/ is missing or older than the sources.
//
// tsc emits with --noCheck: with isolatedModules and verbatimModuleSyntax each file's JavaScript
// does not depend on types, and type checking is `npm run typecheck` / `npm run lint`'s job, so a
// start after an edit is not held up (nor refused) by it, as with tsx before. Files of the trees
// that are not TypeScript (the SQL migrations that app/store/migrate.ts reads beside itself) are
// copied next to their compiled modules. The output is built aside and moved into place whole.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { compiledState, distDir, installedPath, root, stampPath } from './compiled.mjs';

const ifStale = process.argv.includes('--if-stale');
const say = (line) => process.stderr.write(`${line}\n`);

const state = compiledState();
if (ifStale && state === 'fresh') process.exit(0);

const tsc = installedPath('typescript/bin/tsc');
if (!tsc) {
  // A production install (`npm ci --omit=dev`) has no TypeScript: it must have been built before
  // the dev dependencies were pruned (docs/operations.md, "Installing and starting").
  const how = 'build before pruning the dev dependencies: npm ci && npm run build && npm prune --omit=dev';
  if (state === 'stale' && ifStale) {
    say(
      `dist/ is older than the sources and TypeScript is not installed to rebuild it; starting it as built (${how})`,
    );
    process.exit(0);
  }
  say(`cannot build dist/: TypeScript is not installed (a production install?); ${how}`);
  process.exit(1);
}

const startedAt = new Date();
say(`building dist/ (${state === 'missing' ? 'first build' : 'sources changed'})…`);
const staging = join(root, 'node_modules', '.cache', 'trainyard', `dist-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
const result = spawnSync(
  process.execPath,
  [tsc, '-p', join(root, 'tsconfig.build.json'), '--noCheck', '--outDir', staging],
  { stdio: 'inherit', cwd: root },
);
if (result.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  say('build failed');
  process.exit(result.status ?? 1);
}

/** Every file of the source trees that tsc does not emit, at the same place under dist/. */
function copyAssets(dir) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) copyAssets(path);
    else if (!entry.name.endsWith('.ts')) {
      mkdirSync(dirname(join(staging, path)), { recursive: true });
      cpSync(join(root, path), join(staging, path));
    }
  }
}
copyAssets('app');
copyAssets('shared');

// The stamp carries the time the build started: a source saved during the build leaves dist/ stale.
writeFileSync(join(staging, relative(distDir, stampPath)), `${startedAt.toISOString()}\n`);
utimesSync(join(staging, relative(distDir, stampPath)), startedAt, startedAt);
rmSync(distDir, { recursive: true, force: true });
try {
  renameSync(staging, distDir);
} catch (error) {
  // Another build (a second start) moved its output in first: the same sources, keep it.
  rmSync(staging, { recursive: true, force: true });
  if (!statSync(stampPath, { throwIfNoEntry: false })) throw error;
}
try {
  rmdirSync(dirname(staging)); // when no other build is under way
} catch {}
say(`built dist/ in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(1)} s`);
