// The .vsix installed into code-server, then one Playwright run in the real workbench (headless
// Chromium), against a real Trainyard server: activity bar → "Not signed in" → Sign in with GitHub
// → VS Code's consent dialog → Allow → the tree loads with the GitHub session → Set API key from
// the command palette → Merge Queue tree → "Trainyard: Pause queue" → reason prompt → paused
// (tree, toast, server) → Unpause with its confirmation dialog. Screenshots go to --out (CI
// output, not committed).
// GitHub: code-server cannot sign in to GitHub offline, so the test fixture extension
// test/fixtures/github-auth (loaded as a development extension) is the `github` provider, signing
// in with a user token minted by the server's sandbox GitHub; the built-in
// vscode.github-authentication is left out of the host (VSCODE_SKIP_BUILTIN_EXTENSIONS).
// usage: node ui-test.mjs --vsix file.vsix [--out dir]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { hostPaths, launchChromium, startCodeServer } from './code-server.mjs';
import { startTrainyardServer } from './trainyard-server.mjs';

const { values: opt } = parseArgs({
  options: { vsix: { type: 'string' }, out: { type: 'string', default: os.tmpdir() } },
});
if (!opt.vsix) throw new Error('--vsix is required');
const vsix = path.resolve(opt.vsix);
const out = path.resolve(opt.out);
fs.mkdirSync(out, { recursive: true });
const t0 = Date.now();
const ms = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const checks = [];
const check = (name, passed, detail = '') => {
  checks.push({ name, passed });
  console.log(`${passed ? '  ✔' : '  ✖'} ${name}${detail ? ` — ${detail}` : ''}`);
};

const githubAuthFixture = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../test/fixtures/github-auth',
);
const authLog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trainyard-ui-auth-')), 'calls.jsonl');
const providerCalls = () =>
  fs.existsSync(authLog)
    ? fs
        .readFileSync(authLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

let trainyard;
let codeServer;
let browser;
let page;
try {
  trainyard = await startTrainyardServer();
  const { url, adminKey, repository } = trainyard.info;
  console.log(`[${ms()}] Trainyard server on ${url}`);
  codeServer = await startCodeServer({
    vsix,
    settings: {
      'trainyard.apiUrl': url,
      'trainyard.repository': repository,
      'trainyard.refreshInterval': 5,
      'trainyard.githubLogin': 'alice',
    },
    env: {
      VSCODE_SKIP_BUILTIN_EXTENSIONS: 'vscode.github-authentication',
      TRAINYARD_TEST_SERVER: JSON.stringify(trainyard.info),
      TRAINYARD_TEST_AUTH_LOG: authLog,
    },
  });
  const { node, entry } = hostPaths();
  const listed = execFileSync(
    node,
    [
      entry,
      '--user-data-dir',
      codeServer.dirs.ud,
      '--extensions-dir',
      codeServer.dirs.exts,
      '--config',
      path.join(codeServer.dirs.home, 'list-config.yaml'),
      '--list-extensions',
      '--show-versions',
    ],
    { encoding: 'utf8', env: { ...process.env, HOME: codeServer.dirs.home } },
  );
  check(
    'the .vsix installs offline into code-server',
    /trainyard\.trainyard-vscode@0\.1\.0/.test(listed),
    listed
      .split('\n')
      .filter((l) => l.includes('@'))
      .join(', '),
  );

  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  await page.goto(codeServer.url([['extensionDevelopmentPath', codeServer.remote(githubAuthFixture)]]));
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  console.log(`[${ms()}] workbench loaded`);

  // Activation: the extension's status bar item appears.
  await page.locator('.statusbar-item').filter({ hasText: 'Trainyard' }).first().waitFor({ timeout: 30_000 });
  check('the installed extension activates (its status bar item is shown)', true);

  const palette = async (command) => {
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').waitFor();
    await page.keyboard.type(command);
    await page
      .locator('.quick-input-list .monaco-list-row')
      .filter({ hasText: command.split(': ')[1] })
      .first()
      .waitFor();
    await page.keyboard.press('Enter');
  };

  // Activity bar → Merge Queue view: no API key and no GitHub session yet, so it offers to sign in.
  await page.locator('.activitybar [aria-label^="Trainyard"]').first().click({ timeout: 30_000 });
  const signIn = page
    .locator('.welcome-view-content .monaco-button')
    .filter({ hasText: 'Sign in with GitHub' });
  await signIn.first().waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(out, 'ui-0-signed-out.png') });
  // Sign in with GitHub → VS Code asks the user to let Trainyard sign in → Allow.
  await signIn.first().click();
  const consent = page
    .locator('.monaco-dialog-box')
    .filter({ hasText: "The extension 'Trainyard' wants to sign in using GitHub." });
  await consent.waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(out, 'ui-0-consent.png') });
  await consent.locator('.dialog-buttons .monaco-button').filter({ hasText: 'Allow' }).click();
  // The tree loads with the GitHub session's token alone (no API key is set yet).
  await page.getByText(repository, { exact: true }).first().waitFor({ timeout: 30_000 });
  await page.getByText('Not paused', { exact: true }).waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(out, 'ui-0-github-session.png') });
  const created = providerCalls().filter((c) => c.call === 'createSession');
  check(
    'Sign in with GitHub → consent dialog → Allow → the provider creates a session → the tree loads with the GitHub token',
    created.length === 1 && JSON.stringify(created[0].scopes) === '["repo"]',
    `createSession calls: ${JSON.stringify(created)}`,
  );
  console.log(`[${ms()}] signed in with GitHub`);

  // The application key goes in through the real password box (it takes precedence over the session).
  await palette('Trainyard: Set API key');
  await page.locator('.quick-input-widget input[type="password"]').waitFor();
  await page.keyboard.type(adminKey);
  await page.keyboard.press('Enter');

  // Merge Queue tree with the server's data.
  await page.getByText(repository, { exact: true }).first().waitFor({ timeout: 30_000 });
  await page.getByText('Not paused', { exact: true }).waitFor({ timeout: 30_000 });
  await page.getByText('Waiting', { exact: true }).waitFor();
  await page.screenshot({ path: path.join(out, 'ui-1-tree.png') });
  console.log(`[${ms()}] tree shows the server's queue`);

  // My pull requests (alice's, the fixture's author) on top: place, state, ETA; the status bar too.
  const mineRow = page.locator('.monaco-list-row').filter({ hasText: 'My pull requests' });
  await mineRow.first().waitFor({ timeout: 30_000 });
  // The fixture's eleven pull requests are all alice's: the group starts folded; unfold it.
  await mineRow.first().click();
  const firstMine = page.locator('.monaco-list-row').filter({ hasText: /1st · [a-z ]+ · (~|no ETA)/ });
  await firstMine.first().waitFor({ timeout: 30_000 });
  const bar = page.locator('.statusbar-item').filter({ hasText: /#\d+ · 1st · / });
  await bar.first().waitFor({ timeout: 30_000 });
  const mineIndex = await mineRow.first().getAttribute('data-index');
  await page.screenshot({ path: path.join(out, 'ui-5-my-pull-requests.png') });
  await mineRow.first().click(); // fold it again: the batches come into sight
  check(
    'my pull request on top of the view (1st · state · ETA) and in the status bar (#N · 1st · ETA)',
    mineIndex === '0',
    `"My pull requests" row index ${mineIndex}; status bar "${await bar.first().textContent()}"`,
  );

  // A bisecting batch: labelled failed, its probes as a tree, suspects or the culprit marked.
  const bisecting = page
    .locator('.monaco-list-row')
    .filter({ hasText: /failed · bisecting · (culprit|suspects) #\d+/ });
  await bisecting.first().waitFor({ timeout: 30_000 });
  const probes = await page
    .locator('.monaco-list-row')
    .filter({ hasText: /probe \S/ })
    .count();
  const marked = await page
    .locator('.monaco-list-row')
    .filter({ hasText: /(culprit|suspect) · / })
    .count();
  await bisecting.first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(out, 'ui-6-bisecting.png') });
  check(
    'a bisecting batch shows its probes and marks suspects or the culprit',
    probes > 0 && marked > 0,
    `${probes} probe rows, ${marked} marked pull requests`,
  );

  // Command palette → reason prompt → paused.
  await palette('Trainyard: Pause queue');
  await page.locator('.quick-input-widget').getByText('Why pause the queue?').waitFor();
  await page.keyboard.type('deploy freeze');
  await page.screenshot({ path: path.join(out, 'ui-2-prompt.png') });
  await page.keyboard.press('Enter');
  await page.getByText('Paused: deploy freeze', { exact: true }).waitFor({ timeout: 30_000 });
  await page.getByText('Queue paused: deploy freeze').first().waitFor({ timeout: 10_000 });
  // The Event Log says what happened in a sentence (who paused, why), with when and the type beside it.
  const sentence = page.locator('.monaco-list-row').filter({ hasText: /paused the queue: deploy freeze/ });
  await sentence.first().waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(out, 'ui-3-paused.png') });
  const sentences = await page
    .locator('.monaco-list-row')
    .filter({
      hasText:
        /(entered the queue|Checks (started|of)|was removed from the queue|Batch of .* failed; bisecting|paused the queue)/,
    })
    .count();
  await page.screenshot({ path: path.join(out, 'ui-7-event-log.png') });
  check(
    'the Event Log shows events as sentences (the pause: who and why)',
    sentences >= 2 && /queue pause create/.test((await sentence.first().textContent()) ?? ''),
    `${sentences} sentence rows; pause row "${await sentence.first().textContent()}"`,
  );
  const pause = await fetch(`${url}/v1/repos/${repository}/merge-queue/pause`, {
    headers: { authorization: `Bearer ${adminKey}` },
  }).then((r) => (r.ok ? r.json() : null));
  check(
    'activity bar → tree → command palette → reason prompt → paused (tree, toast, event log, server)',
    pause?.reason === 'deploy freeze',
    `server pause record: ${JSON.stringify(pause)}`,
  );

  // Unpause, through the confirmation dialog.
  await palette('Trainyard: Unpause queue');
  await page
    .locator('.monaco-dialog-box')
    .getByRole('button', { name: 'Unpause' })
    .click({ timeout: 10_000 });
  await page.getByText('Not paused', { exact: true }).waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(out, 'ui-4-unpaused.png') });
  const after = await fetch(`${url}/v1/repos/${repository}/merge-queue/pause`, {
    headers: { authorization: `Bearer ${adminKey}` },
  });
  check('Unpause queue asks for confirmation and unpauses on the server', after.status === 404);

  // Statistics: a webview with the bundled chart library under a strict CSP; 30 days of the fixture's queue.
  await palette('Trainyard: Show statistics');
  let statsFrame = null;
  const deadline = Date.now() + 30_000;
  while (!statsFrame && Date.now() < deadline) {
    for (const f of page.frames()) {
      if (
        await f
          .locator('#charts')
          .count()
          .catch(() => 0)
      )
        statsFrame = f;
    }
    if (!statsFrame) await page.waitForTimeout(250);
  }
  if (!statsFrame) throw new Error('the Statistics webview did not open');
  await statsFrame.locator('.periods button[data-days="30"]').click();
  await statsFrame
    .locator('.periods button[data-days="30"][aria-pressed="true"]')
    .waitFor({ timeout: 30_000 });
  await statsFrame.locator('section.chart canvas').nth(5).waitFor({ timeout: 30_000 });
  const headings = await statsFrame.locator('section.chart h2').allTextContents();
  const batchSummary = await statsFrame.locator('section[data-chart="batch-size"] p').textContent();
  await page.screenshot({ path: path.join(out, 'ui-8-statistics.png') });
  check(
    'Statistics view: six charts (canvas) over 30 days, with titles and a summary a person reads',
    headings.length === 6 &&
      headings[0].startsWith('Time to merge') &&
      /batches started/.test(batchSummary ?? ''),
    `headings ${JSON.stringify(headings)}; batch size: "${batchSummary}"`,
  );
  console.log(`[${ms()}] screenshots in ${out}`);
} catch (e) {
  console.error(`UI test failed: ${e.message}`);
  await page?.screenshot({ path: path.join(out, 'ui-failure.png') }).catch(() => {});
  checks.push({ name: 'UI run', passed: false });
} finally {
  await browser?.close().catch(() => {});
  await codeServer?.close();
  await trainyard?.stop();
  fs.rmSync(path.dirname(authLog), { recursive: true, force: true });
}
const failed = checks.filter((c) => !c.passed).length;
console.log(`${checks.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
