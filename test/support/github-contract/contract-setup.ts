import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import type { GithubExchange } from '../../../app/github/client/exchange-channel.ts';
import type { SandboxResponse, SandboxWebhook } from '../../../app/sandbox/contract-channels.ts';
import { ContractCheck, installContractCheck } from './contract-check.ts';

/**
 * Installed for every test file (vitest.config.ts, setupFiles): every request the app sends to
 * GitHub (nock or the sandbox), every answer of the sandbox code host and every webhook it
 * delivers is checked against GitHub's published descriptions after each test, and the test
 * fails on the first difference. With TRAINYARD_GITHUB_CONTRACT_DIR set, each file's counts per
 * operation are written there (`npm run bench:github-contract` prints them).
 */
const file = relative(process.cwd(), expect.getState().testPath ?? 'unknown');
const contract = new ContractCheck(file);
installContractCheck(contract);

const onApp = (message: unknown) => contract.observe({ kind: 'app', exchange: message as GithubExchange });
const onSandbox = (message: unknown) =>
  contract.observe({ kind: 'sandbox', response: message as SandboxResponse });
const onWebhook = (message: unknown) =>
  contract.observe({ kind: 'webhook', webhook: message as SandboxWebhook });
subscribe('trainyard:github:exchange', onApp);
subscribe('trainyard:sandbox:response', onSandbox);
subscribe('trainyard:sandbox:webhook', onWebhook);

function failOn(problems: string[]): void {
  if (problems.length === 0) return;
  const distinct = [...new Set(problems)];
  throw new Error(
    `${problems.length} exchange(s) with GitHub differ from GitHub's published description:\n- ${distinct.slice(0, 20).join('\n- ')}`,
  );
}

afterEach(() => {
  failOn(contract.check());
});

afterAll(() => {
  unsubscribe('trainyard:github:exchange', onApp);
  unsubscribe('trainyard:sandbox:response', onSandbox);
  unsubscribe('trainyard:sandbox:webhook', onWebhook);
  const late = contract.check();
  const dir = process.env['TRAINYARD_GITHUB_CONTRACT_DIR'];
  if (dir) {
    mkdirSync(dir, { recursive: true });
    const name = `${file.replaceAll(/[^\w.-]/g, '_')}-${process.pid}.json`;
    writeFileSync(join(dir, name), JSON.stringify(contract.tally));
  }
  failOn(late);
});
