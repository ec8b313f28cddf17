import type { GithubExchange } from '../../../app/github/client/exchange-channel.ts';
import type { SandboxResponse, SandboxWebhook } from '../../../app/sandbox/contract-channels.ts';
import { type ContractTally, emptyTally, operationCount, webhookCount } from './contract-tally.ts';
import { githubDescriptions } from './github-descriptions.ts';

type Observed =
  | { kind: 'app'; exchange: GithubExchange }
  | { kind: 'sandbox'; response: SandboxResponse }
  | { kind: 'webhook'; webhook: SandboxWebhook };

/** The sandbox answers on loopback; anything else the app talks to in tests is nock. */
const isLoopback = (url: string) => /^https?:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?\//.test(url);

function parseBody(text: string, contentType: string): unknown {
  if (text === '') return '';
  if (!/json/.test(contentType)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Collects what the app sends GitHub, what the sandbox answers and what it delivers, while a test
 * runs; checks it all against GitHub's descriptions afterwards (never on the request's path,
 * so no test's timing changes), counting per operation.
 */
export class ContractCheck {
  private observed: Observed[] = [];
  readonly tally: ContractTally;

  constructor(file: string) {
    this.tally = emptyTally(file);
  }

  /**
   * Called as the exchange happens: the app's bodies are copied then, since octokit's paginate
   * rewrites an answer's object in place (`{ total_count, check_runs }` becomes the list).
   */
  observe(item: Observed): void {
    if (item.kind === 'app') {
      const { exchange } = item;
      this.observed.push({
        kind: 'app',
        exchange: {
          ...exchange,
          requestBody: structuredClone(exchange.requestBody),
          responseBody: structuredClone(exchange.responseBody),
        },
      });
    } else this.observed.push(item);
  }

  /** Checks everything observed since the last call; returns the problems found. */
  check(): string[] {
    const items = this.observed;
    this.observed = [];
    if (items.length === 0) return [];
    const { rest, webhooks } = githubDescriptions();
    const problems: string[] = [];
    const report = (what: string, found: string[]) => {
      if (found.length > 0) problems.push(`${what}: ${found.join('; ')}`);
    };
    for (const item of items) {
      if (item.kind === 'app') {
        const { exchange } = item;
        const request = rest.checkRequest(exchange.method, exchange.url, exchange.requestBody);
        if (request.operation === null) {
          this.tally.unmatched++;
          report(`request ${exchange.method} ${exchange.url}`, request.problems);
          continue;
        }
        const count = operationCount(this.tally, request.operation.key);
        count.requests++;
        if (request.problems.length > 0) count.invalidRequests++;
        report(`request ${request.operation.key} (${exchange.method} ${exchange.url})`, request.problems);
        // The sandbox's answers are checked where it sends them; nock's here.
        if (exchange.status === null || isLoopback(exchange.url)) continue;
        // Counted and listed, not failed: a script gives only the fields its test needs.
        const response = rest.checkResponse(
          exchange.method,
          exchange.url,
          exchange.status,
          exchange.responseBody,
        );
        count.scripted++;
        if (response.problems.length > 0) {
          count.invalidScripted++;
          this.tally.scriptedProblems.push(
            `scripted answer ${exchange.status} to ${request.operation.key}: ${response.problems.join('; ')}`,
          );
        }
      } else if (item.kind === 'sandbox') {
        const { response } = item;
        const body = parseBody(response.body, response.contentType);
        const checked = rest.checkResponse(response.method, response.url, response.status, body);
        if (checked.operation === null) {
          // A request GitHub's description does not have, made by a test (the app's own are
          // checked above): a path GitHub answers 404, or one it serves without describing it
          // (`GET /git/refs/heads/main`, the older form of `/git/ref/…`). Nothing to check the
          // answer against: counted, not failed.
          this.tally.undescribed++;
          continue;
        }
        const count = operationCount(this.tally, checked.operation.key);
        count.responses++;
        if (checked.problems.length > 0) count.invalidResponses++;
        report(
          `sandbox answer ${response.status} to ${checked.operation.key} (${response.url})`,
          checked.problems,
        );
      } else {
        const { webhook } = item;
        const checked = webhooks.check(webhook.event, webhook.action, JSON.parse(webhook.body));
        const count = webhookCount(this.tally, checked.key);
        count.delivered++;
        if (checked.problems.length > 0) count.invalid++;
        report(`webhook ${checked.key}`, checked.problems);
      }
    }
    this.tally.problems.push(...problems);
    return problems;
  }
}

const current = Symbol.for('trainyard.test.contract-check');

/** The running test file's check (set by contract-setup.ts), for tests of the check itself. */
export function currentContractCheck(): ContractCheck {
  const check = (globalThis as { [current]?: ContractCheck })[current];
  if (check === undefined)
    throw new Error('the contract check is not installed (vitest.config.ts setupFiles)');
  return check;
}

export function installContractCheck(check: ContractCheck): void {
  (globalThis as { [current]?: ContractCheck })[current] = check;
}
