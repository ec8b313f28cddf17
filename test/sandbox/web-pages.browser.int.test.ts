import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../app/sandbox/start-sandbox.ts';
import { startSystem, type TrainyardSystem } from '../../app/start-system.ts';
import type { Store } from '../../app/store/database.ts';
import { launchChromium } from '../../scripts/chromium.mjs';
import { sandboxSystemSettings } from '../support/sandbox-system-settings.ts';
import { openTestStore } from '../support/test-store.ts';

/*
 * Issue #19, item 4: the sandbox serves a page per pull request at the URL the API returns, and
 * a repository page. The whole system runs as `npm start` runs it (the sandbox, the app, the
 * API) at a fast pace, and headless Chromium (playwright-core, as the extension's UI test) reads
 * the pages as a person does: a pull request with a hostile title, its labels and checks; a
 * `@trainyard queue` typed in the comment box and posted; the app's 👍 and its Trainyard check
 * run appearing with their text; the pull request merged in the end.
 */

/** The check run the app publishes on queued pull requests (app/github/render/check-run.ts). */
const CHECK_RUN = 'Trainyard';
const HOSTILE_TITLE = `<img src=x onerror="window.__xss=1"> Fix & "quote" <b>bold</b>`;
const HOSTILE_COMMENT = `<script>window.__xss=2</script> looks good </div><textarea>`;

let dir: string;
let store: Store | undefined;
let system: TrainyardSystem | undefined;
let sandbox: Sandbox;
let browser: Browser | undefined;
let page: Page;
let number: number;
let pullUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainyard-web-pages-'));
  store = await openTestStore();
  system = await startSystem({
    // 2-second CI runs, a second's batch wait.
    settings: sandboxSystemSettings(dir, 300),
    store,
    logger: pino({ level: 'silent' }),
    sandbox: {
      seed: 7,
      // The demo's own pull requests are rare here: the one under test is queued by hand.
      workload: { ratePerHour: 0.2, externalPushesPerHour: 0, badRate: 0 },
      ci: { flakeRate: 0, spread: 0 },
      retryDelaysMs: [50, 100, 200, 500, 1_000, 2_000],
    },
  });
  sandbox = system.side.sandbox!;
  system.app.start();
  const repo = sandbox.github.repository(sandbox.repository.owner, sandbox.repository.name)!;
  // A contributor's pull request that nobody has queued, with a title that tries to be HTML.
  const pull = sandbox.github.openPullRequest(repo, {
    author: 'alice',
    title: HOSTILE_TITLE,
    body: 'Adds <em>a widget</em>.\nSecond line.',
    files: { 'areas/area-00/web-page-test.ts': 'export const shown = true;\n' },
    labels: ['hotfix'],
  });
  number = pull.number;
  pullUrl = `${sandbox.server.urls.web}/${sandbox.repository.owner}/${sandbox.repository.name}/pull/${number}`;
  browser = await launchChromium();
  page = await browser.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Reloads the page until `ready` holds (the app works in the background), at most `ms`. */
async function reloadUntil(ready: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await ready()) return;
    if (Date.now() > deadline)
      throw new Error(`not shown within ${ms} ms:\n${await page.locator('body').innerText()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await page.reload();
  }
}

const checkSection = (name: string) => page.locator(`section.check[data-check="${name}"]`);

describe('the sandbox pull request pages, in Chromium', () => {
  it('the repository page lists the open pull request and leads to its page', async () => {
    const response = await page.goto(`${sandbox.server.urls.web}/demo/widgets`);
    expect(response?.status()).toBe(200);
    expect(await page.locator('h1').innerText()).toBe('demo/widgets');
    const row = page.locator(`tr[data-pull="${number}"]`);
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.innerText()).toContain(HOSTILE_TITLE);
    expect(await row.locator('.label').innerText()).toBe('hotfix');
    await row.locator('a').click();
    await page.waitForURL(pullUrl);
  });

  it('a pull request page shows its title, author, labels, state and body as text (hostile HTML stays text)', async () => {
    expect(page.url()).toBe(pullUrl);
    expect(await page.locator('h1 .title').innerText()).toBe(HOSTILE_TITLE);
    expect(await page.locator('h1 img, h1 b').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.title()).toBe(`${HOSTILE_TITLE} · #${number} · demo/widgets`);
    expect(await page.locator('.author').first().innerText()).toBe('alice');
    expect(await page.locator('.state').innerText()).toBe('Open');
    expect(await page.locator('.labels .label').allInnerTexts()).toEqual(['hotfix']);
    expect(await page.locator('.prose').first().innerText()).toBe('Adds <em>a widget</em>.\nSecond line.');
    // Not queued by anyone yet: no Trainyard check run. CI runs on every push.
    expect(await checkSection(CHECK_RUN).count()).toBe(0);
    await reloadUntil(async () => (await checkSection('ci').count()) === 1, 30_000);
  });

  it('a comment typed in the box is posted, shown as text, and `@trainyard queue` takes effect: 👍, the Trainyard check run with its text, then merged', async () => {
    await page.locator('textarea[name="body"]').fill(HOSTILE_COMMENT);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(/#comment-\d+$/);
    const hostile = page.locator('article.comment').last();
    expect(await hostile.locator('.comment-body').innerText()).toBe(HOSTILE_COMMENT);
    expect(await page.locator('article.comment script, article.comment textarea').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();

    // As the demo's maintainer (the first in the list: the most powerful).
    expect(await page.locator('select[name="user"]').inputValue()).toBe(sandbox.people.maintainer);
    await page.locator('textarea[name="body"]').fill('@trainyard queue');
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(/#comment-\d+$/);
    const command = page
      .locator('article.comment')
      .filter({ has: page.locator('.comment-body', { hasText: /^@trainyard queue$/ }) });
    expect(await command.locator('.author').innerText()).toBe(sandbox.people.maintainer);
    expect(await command.locator('.comment-body').innerText()).toBe('@trainyard queue');

    // The app acknowledges the command and publishes its check run on the pull request.
    await reloadUntil(
      async () =>
        (await command.locator('.reaction').count()) > 0 && (await checkSection(CHECK_RUN).count()) === 1,
      60_000,
    );
    expect(await command.locator('.reaction').innerText()).toBe('👍 1');
    const repo = sandbox.github.repository('demo', 'widgets')!;
    const [run] = sandbox.github.checks
      .runsFor(repo, repo.pulls.get(number)!.headSha, { checkName: CHECK_RUN, latestOnly: true })
      .filter((r) => r.app.id === sandbox.github.app.id);
    const section = checkSection(CHECK_RUN);
    // Shown first, by the app, with the texts it wrote (a later version may have come meanwhile).
    expect(await page.locator('section.check').first().getAttribute('data-check')).toBe(CHECK_RUN);
    expect(await section.innerText()).toContain('by Trainyard');
    const title = await section.locator('.check-title').innerText();
    expect(title.length).toBeGreaterThan(0);
    expect(await section.locator('.check-summary').innerText()).not.toBe('');
    expect(run?.title).toBeTruthy();

    // Queued by hand, tested with the 2-second CI, merged: the page says so, and the app's check
    // run, completed after the merge, says how it ended.
    await reloadUntil(
      async () =>
        (await page.locator('.state').innerText()) === 'Merged' &&
        (await checkSection(CHECK_RUN).locator('.outcome').innerText()) === 'success',
      120_000,
    );
    expect(await page.locator('p.meta').innerText()).toContain(`merged by ${sandbox.github.app.bot.login}`);
    if (process.env.SCREENSHOTS) await page.screenshot({ path: process.env.SCREENSHOTS, fullPage: true });
    const finalRun = sandbox.github.checks
      .runsFor(repo, repo.pulls.get(number)!.headSha, { checkName: CHECK_RUN, latestOnly: true })
      .find((r) => r.app.id === sandbox.github.app.id)!;
    expect(await checkSection(CHECK_RUN).locator('.check-title').innerText()).toBe(finalRun.title);
    expect(await checkSection(CHECK_RUN).locator('.outcome').innerText()).toBe(finalRun.conclusion);
  });

  it('refuses what does not come from a page it served, or not over loopback', async () => {
    const post = await fetch(`${pullUrl}/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        body: '@trainyard dequeue',
        user: sandbox.people.maintainer,
        token: 'forged',
      }),
      redirect: 'manual',
    });
    expect(post.status).toBe(403);
    expect(await post.text()).toContain('out of date');
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL(pullUrl);
      httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, headers: { host: 'evil.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(rebound).toBe(421);
    const missing = await fetch(`${sandbox.server.urls.web}/demo/widgets/pull/99999`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});
