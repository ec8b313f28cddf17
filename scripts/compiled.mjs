// Where the compiled server lives and whether it is up to date with the TypeScript sources.
// Shared by scripts/build.mjs (`npm run build`, and `prestart` before `npm start`) and
// bin/trainyard.mjs (`npx trainyard`). No dependencies: it runs on a production install too.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const distDir = join(root, 'dist');
/** Written last by a build; its modification time is the time the build started. */
export const stampPath = join(distDir, '.built');

/** What the build reads: a change to any of them (or a file added to or removed from the trees) makes dist/ stale. */
const sourceTrees = ['app', 'shared'];
const sourceFiles = ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'scripts/compiled.mjs'];

/** The latest modification time among the sources, their directories included (a deletion changes its directory's). */
export function newestSourceTime() {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  for (const tree of sourceTrees) visit(join(root, tree));
  for (const file of sourceFiles) visit(join(root, file));
  return newest;
}

/** `missing` (never built), `stale` (a source changed since the build started) or `fresh`. */
export function compiledState() {
  const stamp = statSync(stampPath, { throwIfNoEntry: false });
  if (!stamp || !existsSync(join(distDir, 'app', 'main.js'))) return 'missing';
  return newestSourceTime() > stamp.mtimeMs ? 'stale' : 'fresh';
}

/** The path of a package's file when the package is installed (devDependencies are absent from a production install). */
export function installedPath(specifier) {
  try {
    return createRequire(join(root, 'package.json')).resolve(specifier);
  } catch {
    return undefined;
  }
}
