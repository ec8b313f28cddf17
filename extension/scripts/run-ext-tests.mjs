// Runs the extension's mocha suite inside the real Node extension host of a local code-server
// (VS Code 1.139.1), against a real Trainyard server, driven by headless Chromium.
// The contract is @vscode/test-electron's: extensionDevelopmentPath + extensionTestsPath → run().
// usage: node run-ext-tests.mjs [--ext dir] [--tests path] [--verbose] [--timeout seconds]
// Prints the spec output and a closing line "N passed, N failed[, N skipped]"; exit code 0 on success.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import util, { parseArgs } from 'node:util';
import { launchChromium, startCodeServer } from './code-server.mjs';
import { startTrainyardServer } from './trainyard-server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    ext: { type: 'string', default: path.join(here, '..') },
    tests: { type: 'string', default: path.join(here, '../dist/test/suite/index') },
    verbose: { type: 'boolean', default: false },
    timeout: { type: 'string', default: '240' },
  },
});
const t0 = Date.now();
const ms = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'trainyard-ext-tests-'));
const testLog = path.join(out, 'test.log');
const testResults = path.join(out, 'results.json');

let exitCode = 1;
let trainyard;
let codeServer;
let browser;
try {
  trainyard = await startTrainyardServer();
  console.log(
    `[${ms()}] Trainyard server on ${trainyard.info.url} (${trainyard.info.eventCount} events imported)`,
  );
  // The workspace is a git repository whose origin is the test repository on GitHub, so that
  // detection through the built-in git extension can be tested (when git is installed).
  const remote = 'https://github.com/acme/app.git';
  codeServer = await startCodeServer({
    settings: {
      'git.enabled': true,
      'git.autoRepositoryDetection': true,
      'git.openRepositoryInParentFolders': 'never',
    },
    prepareWorkspace(ws) {
      try {
        execFileSync('git', ['init', '-q', ws]);
        execFileSync('git', ['-C', ws, 'remote', 'add', 'origin', remote]);
        return { TRAINYARD_TEST_GIT_REMOTE: remote };
      } catch {
        console.log('git is not available: repository detection from the remote is skipped');
        return {};
      }
    },
    env: {
      // The GitHub-session tests (05-github-session) register the `github` authentication provider
      // themselves. The built-in vscode.github-authentication, which cannot sign in offline, runs
      // in the same extension host and would keep the id: the server leaves it out.
      VSCODE_SKIP_BUILTIN_EXTENSIONS: 'vscode.github-authentication',
      EXT_TEST_LOG: testLog,
      EXT_TEST_RESULTS: testResults,
      TRAINYARD_TEST_SERVER: JSON.stringify(trainyard.info),
    },
  });
  console.log(`[${ms()}] code-server on ${codeServer.authority}`);
  const payload = [
    ['extensionDevelopmentPath', codeServer.remote(opt.ext)],
    ['extensionTestsPath', codeServer.remote(opt.tests)],
  ];
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // the workbench calls window.codeAutomationExit(code) when the extension host's run() settles
  let resolveDone;
  const done = new Promise((r) => {
    resolveDone = r;
  });
  await page.exposeFunction('codeAutomationExit', (code) => resolveDone(code));
  if (opt.verbose) {
    page.on('console', async (m) => {
      const args = await Promise.all(m.args().map((a) => a.jsonValue().catch(() => '?')));
      if (typeof args[0] === 'string' && args[0].startsWith('%c')) args.splice(0, 2);
      console.log('[browser]', util.format(...args));
    });
  }
  await page.goto(codeServer.url(payload));
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  console.log(`[${ms()}] workbench loaded`);
  exitCode = await Promise.race([
    done,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error('timed out waiting for the tests')), Number(opt.timeout) * 1000),
    ),
  ]);
  console.log(`[${ms()}] extension tests finished, exit code ${exitCode}`);
} catch (e) {
  console.error(e.message);
  exitCode = 1;
} finally {
  if (fs.existsSync(testLog)) process.stdout.write(fs.readFileSync(testLog, 'utf8'));
  let r = { passed: 0, failed: 0 };
  try {
    r = JSON.parse(fs.readFileSync(testResults, 'utf8'));
  } catch {
    console.error('no results file written by the extension host');
    if (!exitCode) exitCode = 1;
  }
  await browser?.close().catch(() => {});
  await codeServer?.close();
  await trainyard?.stop();
  fs.rmSync(out, { recursive: true, force: true });
  console.log(`${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''}`);
}
process.exit(exitCode);
