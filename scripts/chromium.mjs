// Headless Debian Chromium driven by playwright-core, shared by the browser tests: the VS Code
// extension's UI run (extension/scripts/code-server.mjs) and the sandbox's pages
// (test/sandbox/web-pages.browser.int.test.ts). Chromium comes from Debian (`apt-get install
// chromium`: extension/scripts/setup-vscode-host.sh and .ci/run install it when missing);
// CHROMIUM points at another binary.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

/** The Chromium binary: CHROMIUM, else Debian's. */
export function chromiumPath() {
  return process.env.CHROMIUM || '/usr/bin/chromium';
}

/** A headless Chromium; fails with what to install when there is none. */
export function launchChromium() {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath))
    throw new Error(`no Chromium at ${executablePath}: apt-get install chromium (or set CHROMIUM)`);
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}
