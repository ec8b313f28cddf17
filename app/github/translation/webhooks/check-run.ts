import type { components } from '@octokit/openapi-webhooks-types';
import { isTestBranch } from '../../../queue/ids.ts';
import type { CheckReport, QueueInput } from '../../../queue/inputs.ts';
import { parseCheckRun } from '../../client/check-report.ts';
import type { RepositoryClient } from '../../client/client.ts';
import { CHECK_RUN_NAME } from '../../render/check-run.ts';
import type { FactsCache } from '../facts-cache.ts';
import { fetchPullRequestState, type PullRequestState, toPullRequestInput } from '../pull-request-state.ts';

type Schemas = components['schemas'];

export type CheckRunEvent =
  Schemas[`webhook-check-run-${'created' | 'completed' | 'rerequested' | 'requested-action'}`];
export type CheckSuiteEvent = Schemas[`webhook-check-suite-${'completed' | 'requested' | 'rerequested'}`];

export interface CheckEventFacts {
  /** check_suite: every check on the commit, listed (a suite's payload holds none of them). */
  checks: CheckReport[];
  /** Open pull requests whose head is the commit: their conditions read its checks. */
  pullRequests: PullRequestState[];
}

/**
 * What a completed run or suite is about. Trainyard's own check run is its output, not CI, and
 * runs that start or are asked to re-run report nothing yet: the engine waits for completions.
 */
interface Subject {
  sha: string;
  /** From the payload: pull requests of this repository whose head is the commit. */
  listed: number[];
  /** The payload's list may leave some out (forks): then GitHub is asked. */
  askGithub: boolean;
  /** check_run: the run itself, as reported; check_suite: none (its runs are listed). */
  report: CheckReport | null;
}

function subjectOf(payload: CheckRunEvent | CheckSuiteEvent): Subject | null {
  if (payload.action !== 'completed') return null;
  const repositoryId = payload.repository.id;
  if ('check_run' in payload) {
    const run = payload.check_run;
    if (run.name === CHECK_RUN_NAME) return null;
    return {
      sha: run.head_sha,
      ...pullRequestsOf({
        sha: run.head_sha,
        headBranch: run.check_suite.head_branch ?? null,
        pullRequests: run.pull_requests,
        repositoryId,
      }),
      report: parseCheckRun({
        ...run,
        // GitHub's REST schema lists fewer conclusions than webhooks send; parseCheckRun maps every one.
        conclusion: run.conclusion as Parameters<typeof parseCheckRun>[0]['conclusion'],
        status: run.status,
      }),
    };
  }
  const suite = payload.check_suite;
  return {
    sha: suite.head_sha,
    ...pullRequestsOf({
      sha: suite.head_sha,
      headBranch: suite.head_branch,
      pullRequests: suite.pull_requests,
      repositoryId,
    }),
    report: null,
  };
}

function pullRequestsOf(params: {
  sha: string;
  headBranch: string | null;
  pullRequests: { number: number; head: { sha: string; ref: string }; base: { repo: { id: number } } }[];
  repositoryId: number;
}): { listed: number[]; askGithub: boolean } {
  // A test branch's only pull request is its draft: nothing the engine reads as a pull request.
  if (params.headBranch !== null && isTestBranch(params.headBranch)) return { listed: [], askGithub: false };
  const listed = params.pullRequests
    .filter((pr) => pr.base.repo.id === params.repositoryId && pr.head.sha === params.sha)
    .filter((pr) => !isTestBranch(pr.head.ref))
    .map((pr) => pr.number);
  return { listed, askGithub: params.pullRequests.length === 0 };
}

export async function fetchFacts(
  payload: CheckRunEvent | CheckSuiteEvent,
  ctx: { client: RepositoryClient; cache: FactsCache },
): Promise<CheckEventFacts> {
  const subject = subjectOf(payload);
  if (subject === null) return { checks: [], pullRequests: [] };
  const { client, cache } = ctx;
  const [checks, numbers] = await Promise.all([
    subject.report === null ? client.listChecks(subject.sha) : Promise.resolve([]),
    subject.askGithub ? client.listPullRequestsForCommit(subject.sha) : Promise.resolve(subject.listed),
  ]);
  const known =
    subject.report === null
      ? { sha: subject.sha, checks, complete: true }
      : { sha: subject.sha, checks: [subject.report], complete: false };
  const pullRequests = await Promise.all(
    numbers.map((number) => fetchPullRequestState(client, { number, cache, known })),
  );
  return { checks, pullRequests };
}

/**
 * The commit's checks (the engine keeps those of commits it tests and ignores the rest), then
 * the pull requests whose conditions read them.
 */
export function toInputs(payload: CheckRunEvent | CheckSuiteEvent, facts: CheckEventFacts): QueueInput[] {
  const subject = subjectOf(payload);
  if (subject === null) return [];
  const checks = (subject.report === null ? facts.checks : [subject.report]).filter(
    (check) => check.name !== CHECK_RUN_NAME,
  );
  const inputs: QueueInput[] =
    checks.length === 0 ? [] : [{ type: 'checks_reported', sha: subject.sha, checks }];
  for (const state of facts.pullRequests) {
    const input = toPullRequestInput(state);
    if (input !== null) inputs.push(input);
  }
  return inputs;
}
