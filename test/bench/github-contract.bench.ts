/*
 * GitHub's contract, counted (issue #18): runs test files with the contract check of
 * test/support/github-contract/ writing each file's counts, then prints, per REST operation,
 * the requests the app sent, the answers the sandbox code host gave and the answers tests
 * scripted with nock (or replayed from @octokit/fixtures) that were checked against GitHub's
 * published REST description (@octokit/openapi), how many of each were valid, and the same
 * for the webhooks the sandbox delivered (@octokit/openapi-webhooks). Scripted answers are
 * counted but do not fail (a script gives only the fields its test reads).
 *
 *   npm run bench:github-contract                        # test/github and test/sandbox
 *   npm run bench:github-contract -- test/github/flows    # any vitest file filters
 *
 * Exits non-zero when any exchange was invalid. Test files that fail for another reason are
 * reported by vitest above the table; their counts are still included.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ContractTally, mergeTallies } from '../support/github-contract/contract-tally.ts';

const filters = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'trainyard-contract-'));
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=dot', ...(filters.length > 0 ? filters : ['test/github', 'test/sandbox'])],
  { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, TRAINYARD_GITHUB_CONTRACT_DIR: dir } },
);
const tallies = readdirSync(dir).map(
  (name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as ContractTally,
);
rmSync(dir, { recursive: true, force: true });
const total = mergeTallies(tallies);

const pad = (text: string | number, width: number) => String(text).padStart(width);
const ratio = (all: number, invalid: number) => (all === 0 ? '—' : `${all - invalid}/${all}`);
console.log(`\nGitHub's contract: ${tallies.length} test files`);
console.log(`${'REST operation'.padEnd(64)} ${pad('requests', 12)} ${pad('sandbox', 12)} ${pad('nock', 10)}`);
const sums = {
  requests: 0,
  invalidRequests: 0,
  responses: 0,
  invalidResponses: 0,
  scripted: 0,
  invalidScripted: 0,
};
for (const [key, c] of Object.entries(total.operations).sort(([a], [b]) => a.localeCompare(b, 'en'))) {
  for (const field of Object.keys(sums) as (keyof typeof sums)[]) sums[field] += c[field];
  console.log(
    `${key.padEnd(64)} ${pad(ratio(c.requests, c.invalidRequests), 12)} ${pad(ratio(c.responses, c.invalidResponses), 12)} ${pad(ratio(c.scripted, c.invalidScripted), 10)}`,
  );
}
console.log(
  `${'all operations (valid/checked)'.padEnd(64)} ${pad(ratio(sums.requests, sums.invalidRequests), 12)} ${pad(ratio(sums.responses, sums.invalidResponses), 12)} ${pad(ratio(sums.scripted, sums.invalidScripted), 10)}`,
);
console.log(`requests of the app matching no operation: ${total.unmatched}`);
console.log(
  `sandbox answers to a test's request no operation describes (404s, legacy routes): ${total.undescribed}`,
);
console.log(`\n${'webhook'.padEnd(40)} ${pad('valid/delivered', 16)}`);
let webhooks = 0;
let invalidWebhooks = 0;
for (const [key, c] of Object.entries(total.webhooks).sort(([a], [b]) => a.localeCompare(b, 'en'))) {
  webhooks += c.delivered;
  invalidWebhooks += c.invalid;
  console.log(`${key.padEnd(40)} ${pad(ratio(c.delivered, c.invalid), 16)}`);
}
console.log(`${'all webhooks'.padEnd(40)} ${pad(ratio(webhooks, invalidWebhooks), 16)}`);
const invalid = sums.invalidRequests + sums.invalidResponses + invalidWebhooks + total.unmatched;
if (total.problems.length > 0) {
  console.log(`\ndifferences (${total.problems.length}, first 40 distinct):`);
  for (const problem of [...new Set(total.problems)].slice(0, 40)) console.log(`- ${problem}`);
}
if (total.scriptedProblems.length > 0) {
  const byOperation = new Map<string, number>();
  for (const problem of total.scriptedProblems) {
    const key = /to ([A-Z]+ \S+)/.exec(problem)?.[1] ?? '?';
    byOperation.set(key, (byOperation.get(key) ?? 0) + 1);
  }
  console.log(
    `\nscripted (nock) answers that give fewer fields than GitHub (reported, not failed): ${total.scriptedProblems.length}`,
  );
  for (const [key, n] of [...byOperation].sort((a, b) => b[1] - a[1]))
    console.log(`  ${String(n).padStart(4)}  ${key}`);
}
process.exitCode = invalid > 0 ? 1 : (run.status ?? 1);
