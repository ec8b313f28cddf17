#!/usr/bin/env node
// `npx trainyard …`: the compiled CLI (dist/app/cli/main.js) when dist/ is up to date. In a
// development checkout whose dist/ is missing or older than the sources, the TypeScript sources
// run through tsx (a dev dependency) rather than building first; a production install has no tsx
// and runs dist/ as built (see scripts/build.mjs).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledState, distDir, installedPath, root } from '../scripts/compiled.mjs';

const state = compiledState();
const tsx = state === 'fresh' ? undefined : installedPath('tsx');
if (tsx) {
  const result = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(tsx).href, join(root, 'app/cli/main.ts'), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(result.status ?? 1);
}
if (state === 'missing') {
  process.stderr.write('trainyard: dist/ is not built: run `npm run build` first\n');
  process.exit(1);
}
if (state === 'stale')
  process.stderr.write('trainyard: dist/ is older than the sources; running it as built\n');
await import(pathToFileURL(join(distDir, 'app', 'cli', 'main.js')).href);
