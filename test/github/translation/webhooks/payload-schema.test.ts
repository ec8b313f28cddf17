import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { RepositoryClient } from '../../../../app/github/client/client.ts';
import { handledEvents } from '../../../../app/github/inbox/delivery-step.ts';
import { FactsCache } from '../../../../app/github/translation/facts-cache.ts';
import * as checkRun from '../../../../app/github/translation/webhooks/check-run.ts';
import * as installation from '../../../../app/github/translation/webhooks/installation.ts';
import * as issueComment from '../../../../app/github/translation/webhooks/issue-comment.ts';
import { checkPayload, payloadSchemas } from '../../../../app/github/translation/webhooks/payload.schema.ts';
import * as pullRequest from '../../../../app/github/translation/webhooks/pull-request.ts';
import * as pullRequestReview from '../../../../app/github/translation/webhooks/pull-request-review.ts';
import * as push from '../../../../app/github/translation/webhooks/push.ts';
import * as repository from '../../../../app/github/translation/webhooks/repository.ts';
import * as status from '../../../../app/github/translation/webhooks/status.ts';
import { pullRequestInfo } from '../../../support/pull-request-info.ts';

/*
 * The door's payload schemas (app/github/translation/webhooks/payload.schema.ts) against GitHub's own examples of every
 * handled event (@octokit/webhooks-examples): each passes, and the translators given only what
 * the schema keeps of it (zod drops the rest) ask GitHub the same and answer the same as with the
 * whole payload — so the schema holds every field they read.
 */

type Payload = Record<string, unknown>;
const examples = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@octokit/webhooks-examples'), 'utf8')) as {
    name: string;
    examples: Payload[];
  }[]
).filter((d) => handledEvents.has(d.name));

const APP_SLUG = 'trainyard';

/**
 * Each example, and variants of some that take the translators down their deeper paths: a
 * command in a comment on a pull request, a push to the default branch that changes the
 * configuration.
 */
function casesOf(event: string, payloads: Payload[]): [string, Payload][] {
  const cases: [string, Payload][] = payloads.map((p, n) => [`${event} #${n} ${p['action'] ?? ''}`, p]);
  for (const [name, p] of cases.slice()) {
    const variant = structuredClone(p) as Record<string, Record<string, unknown>>;
    if (event === 'issue_comment') {
      // GitHub's examples are all comments on issues: this one is on a pull request.
      variant['issue']!['pull_request'] = { url: 'https://api.github.com/repos/acme/widgets/pulls/1' };
      variant['comment']!['body'] = `@${APP_SLUG} queue`;
      // Not the default account type: the command's author type is read from the payload.
      (variant['comment']!['user'] as Payload)['type'] = 'Bot';
    } else if (event === 'push') {
      variant['ref'] = `refs/heads/${variant['repository']!['default_branch']}` as never;
      variant['deleted'] = false as never;
      variant['commits'] = [{ modified: ['.github/trainyard.yml'] }] as never;
    } else continue;
    cases.push([`${name} (variant)`, variant]);
  }
  return cases;
}

const allCases = examples.flatMap((d) =>
  casesOf(d.name, d.examples).map(([n, p]) => [d.name, n, p] as const),
);

/** A RepositoryClient answering every read the translators make, recording each. */
function recordingClient(calls: string[]): RepositoryClient {
  const answers: Record<string, (...args: never[]) => unknown> = {
    getRepository: () => ({ id: 1, defaultBranch: 'main' }),
    listChecks: () => [],
    listPullRequestsForCommit: () => [7],
    getPullRequest: (n: number) => pullRequestInfo(n),
    listPullRequestFiles: () => ['src/a.ts'],
    listReviews: () => ({ approvedBy: ['bob'], changesRequestedBy: [] }),
    getPermission: () => 'write',
    getFileText: () => 'queue_rules:\n  - name: default\n',
  };
  return new Proxy({} as RepositoryClient, {
    get(_, name) {
      if (name === 'owner') return 'acme';
      if (name === 'repo') return 'widgets';
      if (name === 'then') return undefined;
      return async (...args: never[]) => {
        calls.push(`${String(name)}(${JSON.stringify(args)})`);
        const answer = answers[String(name)];
        if (answer === undefined) throw new Error(`the translators do not call ${String(name)}`);
        return answer(...args);
      };
    },
  });
}

/** What a handler makes of a payload: the reads it asks of GitHub and what it hands on. */
async function translate(event: string, payload: Payload): Promise<{ calls: string[]; output: unknown }> {
  const calls: string[] = [];
  const client = recordingClient(calls);
  const ctx = { client, cache: new FactsCache() };
  const p = payload as never;
  const output = await (async () => {
    switch (event) {
      case 'pull_request':
        return pullRequest.toInputs(p, await pullRequest.fetchFacts(p, ctx));
      case 'pull_request_review':
        return pullRequestReview.toInputs(p, await pullRequestReview.fetchFacts(p, ctx));
      case 'issue_comment':
        return issueComment.toInputs(p, await issueComment.fetchFacts(p, { client, appSlug: APP_SLUG }));
      case 'check_run':
      case 'check_suite':
        return checkRun.toInputs(p, await checkRun.fetchFacts(p, ctx));
      case 'status':
        return status.toInputs(p, await status.fetchFacts(p, ctx));
      case 'push':
        return push.toInputs(p, await push.fetchFacts(p, { client }));
      case 'installation':
      case 'installation_repositories':
        return installation.toRepositoryChanges(
          p,
          await installation.fetchFacts(p, { clientFor: () => client }),
        );
      case 'repository':
        return repository.toRepositoryChanges(p);
      default:
        throw new Error(`no translator for ${event}`);
    }
  })();
  return { calls, output };
}

describe('payload schemas of the handled events', () => {
  it('there is one for each handled event, and none for any other', () => {
    expect(Object.keys(payloadSchemas).sort()).toEqual([...handledEvents].sort());
  });

  it('every handled event has examples to check against', () => {
    expect(examples.map((d) => d.name).sort()).toEqual([...handledEvents].sort());
  });

  it.each(allCases)(
    '%s: %s passes, and what it keeps is all the translators read',
    async (event, _, payload) => {
      const check = checkPayload(event, payload);
      if (!check.ok) throw new Error(check.problem);
      expect(check.read).not.toEqual(payload); // the schema keeps only part of it
      expect(await translate(event, check.read)).toEqual(await translate(event, payload));
    },
  );

  it('the shell finds the repository and installation in what the schema keeps', () => {
    for (const [event, name, payload] of allCases) {
      if (!('repository' in payload) || event === 'repository') continue;
      const check = checkPayload(event, payload);
      if (!check.ok) throw new Error(check.problem);
      const source = payload as { installation?: { id: number }; repository: Payload };
      const read = check.read as typeof source;
      const {
        id,
        name: repo,
        owner,
        default_branch,
      } = source.repository as {
        id: number;
        name: string;
        owner: { login: string };
        default_branch?: string;
      };
      expect(read.installation?.id, name).toBe(source.installation?.id);
      expect(read.repository, name).toEqual({
        id,
        name: repo,
        owner: { login: owner.login },
        ...(default_branch === undefined ? {} : { default_branch }),
      });
    }
  });
});

/** Nothing at this path any more. */
const REMOVED = Symbol('removed');

/** A real example of an event and action, with the value at `path` replaced (or removed). */
function broken(
  event: string,
  action: string | undefined,
  path: (string | number)[],
  value: unknown,
): Payload {
  const found = examples
    .find((d) => d.name === event)!
    .examples.find((e) => action === undefined || e['action'] === action);
  if (found === undefined) throw new Error(`no ${event}.${action} example`);
  const payload = structuredClone(found);
  const parent = path.slice(0, -1).reduce<Payload>((at, key) => at[key] as Payload, payload);
  const last = path.at(-1)!;
  if (value === REMOVED) delete parent[last];
  else parent[last] = value;
  return payload;
}

function problemOf(event: string, payload: unknown): string {
  const check = checkPayload(event, payload);
  if (check.ok) throw new Error(`${event}: the malformed payload passed`);
  return check.problem;
}

describe('malformed payloads fail, naming what is missing or wrong', () => {
  it('a repository event whose body is a ping', () => {
    expect(problemOf('repository', { zen: 'ping' })).toBe(
      'the repository payload lacks what Trainyard reads: action: Invalid input: expected string, received undefined; ' +
        'repository: Invalid input: expected object, received undefined',
    );
  });

  it('a renamed repository without the old name', () => {
    const payload = broken('repository', 'renamed', ['changes', 'repository', 'name', 'from'], REMOVED);
    expect(problemOf('repository', payload)).toBe(
      'the repository.renamed payload lacks what Trainyard reads: ' +
        'changes.repository.name.from: Invalid input: expected string, received undefined',
    );
  });

  it.each([
    ['pull_request', undefined, ['pull_request', 'head', 'sha'], 42, 'pull_request.head.sha'],
    ['pull_request', undefined, ['number'], REMOVED, 'number'],
    ['pull_request_review', undefined, ['review'], REMOVED, 'review'],
    ['issue_comment', undefined, ['comment', 'user'], { login: 'x' }, 'comment.user.id'],
    [
      'check_run',
      'completed',
      ['check_run', 'pull_requests'],
      [{ number: 1, head: { sha: 'a', ref: 'b' } }],
      'check_run.pull_requests[0].base',
    ],
    ['check_run', 'completed', ['check_run', 'output'], REMOVED, 'check_run.output'],
    ['check_suite', undefined, ['check_suite', 'head_branch'], REMOVED, 'check_suite.head_branch'],
    ['status', undefined, ['branches'], [{ name: 'main' }], 'branches[0].commit'],
    ['push', undefined, ['commits'], [{ added: 'a.txt' }], 'commits[0].added'],
    ['push', undefined, ['repository', 'default_branch'], REMOVED, 'repository.default_branch'],
    ['installation', undefined, ['installation'], null, 'installation'],
    ['installation_repositories', 'removed', ['repositories_removed'], REMOVED, 'repositories_removed'],
    [
      'installation_repositories',
      'added',
      ['repositories_added'],
      [{ id: '1', full_name: 'a/b' }],
      'repositories_added[0].id',
    ],
    ['repository', 'transferred', ['changes', 'owner'], REMOVED, 'changes.owner'],
  ] as const)('%s.%s: %j broken ⇒ the problem names %s', (event, action, path, value, named) => {
    const problem = problemOf(event, broken(event, action, [...path], value));
    expect(problem).toContain(`: ${named}: Invalid input: expected `);
  });

  it('lists three problems and counts the rest', () => {
    expect(problemOf('status', {})).toMatch(
      /^the status payload lacks what Trainyard reads: repository: [^;]+; sha: [^;]+; context: [^;]+ \(and 4 more\)$/,
    );
  });
});
