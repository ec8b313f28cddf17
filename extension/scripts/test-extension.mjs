// `npm run test:extension`: builds the extension and its host tests, sets up the VS Code host
// (code-server on Node 24, cached in ~/.cache/vscode-host), then runs, in order:
//   1. the mocha suite inside the real extension host, against a real Trainyard server;
//   2. `npm run package:extension` (the bundled .vsix);
//   3. the Playwright UI run in the workbench with that .vsix installed (screenshots in
//      test-results/extension/, not committed).
// Prints each part's result and a closing "N passed, N failed[, N skipped]" line; exit 1 on any failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ext = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.dirname(ext);
const t0 = Date.now();
const secs = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const totals = { passed: 0, failed: 0, skipped: 0 };

function run(title, command, args, options = {}) {
  console.log(`\n--- [${secs()}] ${title}`);
  const result = spawnSync(command, args, {
    cwd: root,
    encoding: 'utf8',
    stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    env: { ...process.env, ...(options.env ?? {}) },
  });
  if (options.capture) process.stdout.write(result.stdout ?? '');
  return result;
}

/** Adds a part's closing line to the totals; a part without one counts as one failure. */
function count(result) {
  const m = /(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$/.exec(result.stdout ?? '');
  if (!m) {
    totals.failed++;
    return;
  }
  totals.passed += Number(m[1]);
  totals.failed += Number(m[2]);
  totals.skipped += Number(m[3] ?? 0);
  if (result.status !== 0 && Number(m[2]) === 0) totals.failed++;
}

let ok =
  run('build the extension and its host tests', process.execPath, [path.join(ext, 'esbuild.mjs'), '--tests'])
    .status === 0;
let hostEnv = {};
if (ok) {
  const setup = run(
    'set up the VS Code host (code-server 4.139.1 on Node 24)',
    'bash',
    [path.join(ext, 'scripts/setup-vscode-host.sh')],
    {
      capture: true,
    },
  );
  ok = setup.status === 0;
  hostEnv = Object.fromEntries(
    (setup.stdout ?? '')
      .split('\n')
      .filter((l) => /^CODE_SERVER_(NODE|ENTRY)=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}
if (!ok) {
  console.log('\n0 passed, 1 failed');
  process.exit(1);
}

count(
  run(
    'extension host tests (mocha) against a real Trainyard server',
    process.execPath,
    [path.join(ext, 'scripts/run-ext-tests.mjs')],
    { capture: true, env: hostEnv },
  ),
);

const uiTest = path.join(ext, 'scripts/ui-test.mjs');
if (fs.existsSync(uiTest)) {
  const pack = run('npm run package:extension', 'npm', ['run', 'package:extension']);
  const vsix = path.join(ext, 'trainyard-vscode.vsix');
  if (pack.status !== 0 || !fs.existsSync(vsix)) totals.failed++;
  else {
    const out = path.join(root, 'test-results', 'extension');
    fs.mkdirSync(out, { recursive: true });
    count(
      run(
        '.vsix install + Playwright UI run in the workbench',
        process.execPath,
        [uiTest, '--vsix', vsix, '--out', out],
        { capture: true, env: hostEnv },
      ),
    );
  }
}

console.log(
  `\n[${secs()}] extension: ${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`,
);
process.exit(totals.failed ? 1 : 0);
