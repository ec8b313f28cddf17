// The .vsix installed into code-server, then one Playwright run in the real workbench (headless
// Chromium), against a real Trainyard server: Set API key from the command palette → activity bar
// → Merge Queue tree → "Trainyard: Pause queue" → reason prompt → paused (tree, toast, server)
// → Unpause with its confirmation dialog. Screenshots go to --out (CI output, not committed).
// usage: node ui-test.mjs --vsix file.vsix [--out dir]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
    settings: { 'trainyard.apiUrl': url, 'trainyard.repository': repository, 'trainyard.refreshInterval': 5 },
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
  await page.goto(codeServer.url());
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

  // The application key goes in through the real password box.
  await palette('Trainyard: Set API key');
  await page.locator('.quick-input-widget input[type="password"]').waitFor();
  await page.keyboard.type(adminKey);
  await page.keyboard.press('Enter');

  // Activity bar → Merge Queue tree with the server's data.
  await page.locator('.activitybar [aria-label^="Trainyard"]').first().click({ timeout: 30_000 });
  await page.getByText(repository, { exact: true }).first().waitFor({ timeout: 30_000 });
  await page.getByText('Not paused', { exact: true }).waitFor({ timeout: 30_000 });
  await page.getByText('Waiting', { exact: true }).waitFor();
  await page.screenshot({ path: path.join(out, 'ui-1-tree.png') });
  console.log(`[${ms()}] tree shows the server's queue`);

  // Command palette → reason prompt → paused.
  await palette('Trainyard: Pause queue');
  await page.locator('.quick-input-widget').getByText('Why pause the queue?').waitFor();
  await page.keyboard.type('deploy freeze');
  await page.screenshot({ path: path.join(out, 'ui-2-prompt.png') });
  await page.keyboard.press('Enter');
  await page.getByText('Paused: deploy freeze', { exact: true }).waitFor({ timeout: 30_000 });
  await page.getByText('Queue paused: deploy freeze').first().waitFor({ timeout: 10_000 });
  await page.getByText('queue pause create', { exact: true }).first().waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(out, 'ui-3-paused.png') });
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
  console.log(`[${ms()}] screenshots in ${out}`);
} catch (e) {
  console.error(`UI test failed: ${e.message}`);
  await page?.screenshot({ path: path.join(out, 'ui-failure.png') }).catch(() => {});
  checks.push({ name: 'UI run', passed: false });
} finally {
  await browser?.close().catch(() => {});
  await codeServer?.close();
  await trainyard?.stop();
}
const failed = checks.filter((c) => !c.passed).length;
console.log(`${checks.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
