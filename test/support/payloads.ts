import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CheckRunEvent, CheckSuiteEvent } from '../../app/github/translation/webhooks/check-run.ts';
import type {
  InstallationEvent,
  InstallationRepositoriesEvent,
} from '../../app/github/translation/webhooks/installation.ts';
import type { IssueCommentEvent } from '../../app/github/translation/webhooks/issue-comment.ts';
import type { PullRequestEvent } from '../../app/github/translation/webhooks/pull-request.ts';
import type { PullRequestReviewEvent } from '../../app/github/translation/webhooks/pull-request-review.ts';
import type { PushEvent } from '../../app/github/translation/webhooks/push.ts';
import type { RepositoryEvent } from '../../app/github/translation/webhooks/repository.ts';
import type { StatusEvent } from '../../app/github/translation/webhooks/status.ts';

/*
 * Webhook payloads for tests: GitHub's own example payload for the event and action
 * (@octokit/webhooks-examples), with typed overrides of only the fields a test reads.
 * Every other field stays as GitHub sends it.
 */

interface Definition {
  name: string;
  examples: Record<string, unknown>[];
}

let definitions: Definition[] | undefined;

/**
 * A fresh copy of an example (of that action, or that `matches`), preferring one sent to an app
 * installation, as Trainyard gets them.
 */
function example(
  name: string,
  action?: string,
  matches: (e: Record<string, unknown>) => boolean = () => true,
): Record<string, unknown> {
  if (definitions === undefined) {
    const path = createRequire(import.meta.url).resolve('@octokit/webhooks-examples');
    definitions = JSON.parse(readFileSync(path, 'utf8')) as Definition[];
  }
  const candidates = (definitions.find((d) => d.name === name)?.examples ?? []).filter(
    (e) => (action === undefined || e['action'] === action) && matches(e),
  );
  const chosen = candidates.find((e) => 'installation' in e) ?? candidates[0];
  if (chosen === undefined) throw new Error(`no example payload for ${name}${action ? `.${action}` : ''}`);
  return structuredClone(chosen);
}

/** The example repository's id: pull requests listed in check payloads belong to it. */
export const EXAMPLE_REPOSITORY_ID = 186853002;

type Action<E extends { action: string }> = E['action'];
type OfAction<E extends { action: string }, A extends string> = Extract<E, { action: A }>;

// pull_request ------------------------------------------------------------------------------

export interface PullRequestOverrides {
  number?: number;
  headSha?: string;
  headRef?: string;
  base?: string;
  state?: 'open' | 'closed';
  merged?: boolean;
  mergeSha?: string | null;
  draft?: boolean;
}

/** GitHub's examples have no `edited` pull_request: it is built on `opened`, with a title change. */
export function pullRequestEvent<A extends Action<PullRequestEvent>>(
  action: A,
  overrides: PullRequestOverrides = {},
): OfAction<PullRequestEvent, A> {
  const payload = example('pull_request', action === 'edited' ? 'opened' : action);
  if (action === 'edited') Object.assign(payload, { action, changes: { title: { from: 'Old title' } } });
  const pr = payload['pull_request'] as Record<string, Record<string, unknown>>;
  applyPullRequest(payload, pr, overrides);
  return payload as OfAction<PullRequestEvent, A>;
}

function applyPullRequest(
  payload: Record<string, unknown>,
  pr: Record<string, unknown> & { head?: unknown; base?: unknown },
  o: PullRequestOverrides,
): void {
  const head = pr['head'] as Record<string, unknown>;
  const base = pr['base'] as Record<string, unknown>;
  if (o.number !== undefined) {
    if ('number' in payload) payload['number'] = o.number;
    pr['number'] = o.number;
  }
  if (o.headSha !== undefined) head['sha'] = o.headSha;
  if (o.headRef !== undefined) head['ref'] = o.headRef;
  if (o.base !== undefined) base['ref'] = o.base;
  if (o.state !== undefined) pr['state'] = o.state;
  if (o.merged !== undefined) pr['merged'] = o.merged;
  if (o.mergeSha !== undefined) pr['merge_commit_sha'] = o.mergeSha;
  if (o.draft !== undefined) pr['draft'] = o.draft;
}

// pull_request_review -----------------------------------------------------------------------

export interface ReviewOverrides extends PullRequestOverrides {
  review?: 'approved' | 'changes_requested' | 'commented' | 'dismissed';
  reviewer?: string;
}

/** No example of `edited` either: built on `submitted`, with a body change. */
export function pullRequestReviewEvent<A extends Action<PullRequestReviewEvent>>(
  action: A,
  overrides: ReviewOverrides = {},
): OfAction<PullRequestReviewEvent, A> {
  const payload = example('pull_request_review', action === 'edited' ? 'submitted' : action);
  if (action === 'edited') Object.assign(payload, { action, changes: { body: { from: 'Old body' } } });
  const review = payload['review'] as Record<string, Record<string, unknown>>;
  if (overrides.review !== undefined) review['state'] = overrides.review as never;
  if (overrides.reviewer !== undefined) review['user']!['login'] = overrides.reviewer;
  applyPullRequest(payload, payload['pull_request'] as Record<string, unknown>, overrides);
  return payload as OfAction<PullRequestReviewEvent, A>;
}

// issue_comment -----------------------------------------------------------------------------

export interface CommentOverrides {
  number?: number;
  body?: string;
  commentId?: number;
  author?: { login: string; id?: number; type?: 'User' | 'Bot' | 'Organization' };
  /** Comments on plain issues come through the same event; default: on a pull request. */
  onPullRequest?: boolean;
}

export function issueCommentEvent<A extends Action<IssueCommentEvent>>(
  action: A,
  overrides: CommentOverrides = {},
): OfAction<IssueCommentEvent, A> {
  const payload = example('issue_comment', action);
  const issue = payload['issue'] as Record<string, unknown>;
  const comment = payload['comment'] as Record<string, unknown>;
  const number = overrides.number ?? (issue['number'] as number);
  issue['number'] = number;
  if (overrides.onPullRequest ?? true) {
    const url = `https://github.com/Codertocat/Hello-World/pull/${number}`;
    issue['pull_request'] = {
      url: `https://api.github.com/repos/Codertocat/Hello-World/pulls/${number}`,
      html_url: url,
      diff_url: `${url}.diff`,
      patch_url: `${url}.patch`,
      merged_at: null,
    };
  }
  if (overrides.body !== undefined) comment['body'] = overrides.body;
  if (overrides.commentId !== undefined) comment['id'] = overrides.commentId;
  if (overrides.author !== undefined) {
    Object.assign(comment['user'] as object, {
      login: overrides.author.login,
      ...(overrides.author.id === undefined ? {} : { id: overrides.author.id }),
      ...(overrides.author.type === undefined ? {} : { type: overrides.author.type }),
    });
  }
  return payload as OfAction<IssueCommentEvent, A>;
}

// check_run and check_suite -----------------------------------------------------------------

export interface ListedPullRequest {
  number: number;
  headSha?: string;
  headRef?: string;
  /** Another repository's pull request from this repository's branch. */
  baseRepositoryId?: number;
}

export interface CheckRunOverrides {
  name?: string;
  headSha?: string;
  headBranch?: string | null;
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: CheckRunEvent['check_run']['conclusion'];
  pullRequests?: ListedPullRequest[];
}

export function checkRunEvent<A extends Action<CheckRunEvent>>(
  action: A,
  overrides: CheckRunOverrides = {},
): OfAction<CheckRunEvent, A> {
  const payload = example('check_run', action);
  const run = payload['check_run'] as Record<string, unknown>;
  const sha = overrides.headSha ?? (run['head_sha'] as string);
  run['head_sha'] = sha;
  (run['check_suite'] as Record<string, unknown>)['head_sha'] = sha;
  if (overrides.name !== undefined) run['name'] = overrides.name;
  if (overrides.status !== undefined) run['status'] = overrides.status;
  if (overrides.conclusion !== undefined) run['conclusion'] = overrides.conclusion;
  if (overrides.headBranch !== undefined)
    (run['check_suite'] as Record<string, unknown>)['head_branch'] = overrides.headBranch;
  if (overrides.pullRequests !== undefined)
    run['pull_requests'] = listedPullRequests(run['pull_requests'], overrides.pullRequests, sha);
  return payload as OfAction<CheckRunEvent, A>;
}

export interface CheckSuiteOverrides {
  headSha?: string;
  headBranch?: string | null;
  pullRequests?: ListedPullRequest[];
}

export function checkSuiteEvent<A extends Action<CheckSuiteEvent>>(
  action: A,
  overrides: CheckSuiteOverrides = {},
): OfAction<CheckSuiteEvent, A> {
  const payload = example('check_suite', action);
  const suite = payload['check_suite'] as Record<string, unknown>;
  const sha = overrides.headSha ?? (suite['head_sha'] as string);
  suite['head_sha'] = sha;
  if (overrides.headBranch !== undefined) suite['head_branch'] = overrides.headBranch;
  if (overrides.pullRequests !== undefined) {
    const run = example('check_run', 'completed')['check_run'] as Record<string, unknown>;
    suite['pull_requests'] = listedPullRequests(run['pull_requests'], overrides.pullRequests, sha);
  }
  return payload as OfAction<CheckSuiteEvent, A>;
}

/** Pull requests as a check payload lists them: GitHub's minimal shape, one example item reused. */
function listedPullRequests(template: unknown, listed: ListedPullRequest[], sha: string): unknown[] {
  const item = (template as Record<string, Record<string, unknown>>[])[0]!;
  return listed.map((pr) => {
    const copy = structuredClone(item);
    copy['number'] = pr.number as never;
    copy['url'] = `https://api.github.com/repos/Codertocat/Hello-World/pulls/${pr.number}` as never;
    copy['head']!['sha'] = pr.headSha ?? sha;
    copy['head']!['ref'] = pr.headRef ?? `feature-${pr.number}`;
    if (pr.baseRepositoryId !== undefined)
      (copy['base']!['repo'] as Record<string, unknown>)['id'] = pr.baseRepositoryId;
    return copy;
  });
}

// status ------------------------------------------------------------------------------------

export interface StatusOverrides {
  sha?: string;
  context?: string;
  state?: StatusEvent['state'];
  /** Branches containing the commit, and the sha of each branch's head. */
  branches?: { name: string; sha: string }[];
}

export function statusEvent(overrides: StatusOverrides = {}): StatusEvent {
  const payload = example('status');
  const sha = overrides.sha ?? (payload['sha'] as string);
  payload['sha'] = sha;
  (payload['commit'] as Record<string, unknown>)['sha'] = sha;
  if (overrides.context !== undefined) payload['context'] = overrides.context;
  if (overrides.state !== undefined) payload['state'] = overrides.state;
  if (overrides.branches !== undefined) {
    const template = (payload['branches'] as Record<string, unknown>[])[0]!;
    payload['branches'] = overrides.branches.map((b) => ({
      ...structuredClone(template),
      name: b.name,
      commit: { sha: b.sha, url: `https://api.github.com/repos/Codertocat/Hello-World/commits/${b.sha}` },
    }));
  }
  return payload as StatusEvent;
}

// push --------------------------------------------------------------------------------------

export interface PushOverrides {
  /** Full ref (`refs/heads/main`, `refs/tags/v1`). */
  ref?: string;
  before?: string;
  after?: string;
  created?: boolean;
  deleted?: boolean;
  forced?: boolean;
  defaultBranch?: string;
  commits?: { added?: readonly string[]; modified?: readonly string[]; removed?: readonly string[] }[];
}

/** Built on the example push of a branch (refs/heads/master, one commit). */
export function pushEvent(overrides: PushOverrides = {}): PushEvent {
  const payload = example('push', undefined, (e) => String(e['ref']).startsWith('refs/heads/'));
  const repository = payload['repository'] as Record<string, unknown>;
  repository['default_branch'] = overrides.defaultBranch ?? 'main';
  Object.assign(payload, {
    ref: overrides.ref ?? 'refs/heads/main',
    before: overrides.before ?? 'main-0',
    after: overrides.after ?? 'main-1',
    created: overrides.created ?? false,
    deleted: overrides.deleted ?? false,
    forced: overrides.forced ?? false,
  });
  if (overrides.commits !== undefined) {
    const template = (payload['commits'] as Record<string, unknown>[])[0]!;
    payload['commits'] = overrides.commits.map((c, i) => ({
      ...structuredClone(template),
      id: `commit-${i + 1}`,
      added: [...(c.added ?? [])],
      modified: [...(c.modified ?? [])],
      removed: [...(c.removed ?? [])],
    }));
  } else {
    // A default push changes one ordinary file.
    for (const commit of payload['commits'] as Record<string, unknown>[]) {
      Object.assign(commit, { added: [], modified: ['README.md'], removed: [] });
    }
  }
  if (payload['deleted'] === true)
    Object.assign(payload, { after: '0'.repeat(40), commits: [], head_commit: null });
  return payload as PushEvent;
}

// installation, installation_repositories, repository ----------------------------------------

export interface ListedRepository {
  id: number;
  fullName: string;
}

function listedRepository(r: ListedRepository): Record<string, unknown> {
  return {
    id: r.id,
    node_id: `R_${r.id}`,
    name: r.fullName.split('/')[1],
    full_name: r.fullName,
    private: false,
  };
}

export function installationEvent<A extends Action<InstallationEvent>>(
  action: A,
  overrides: { installationId?: number; repositories?: ListedRepository[] } = {},
): OfAction<InstallationEvent, A> {
  const payload = example('installation', action);
  if (overrides.installationId !== undefined)
    (payload['installation'] as Record<string, unknown>)['id'] = overrides.installationId;
  if (overrides.repositories !== undefined)
    payload['repositories'] = overrides.repositories.map(listedRepository);
  return payload as OfAction<InstallationEvent, A>;
}

export function installationRepositoriesEvent<A extends Action<InstallationRepositoriesEvent>>(
  action: A,
  overrides: { installationId?: number; added?: ListedRepository[]; removed?: ListedRepository[] } = {},
): OfAction<InstallationRepositoriesEvent, A> {
  const payload = example('installation_repositories', action);
  if (overrides.installationId !== undefined)
    (payload['installation'] as Record<string, unknown>)['id'] = overrides.installationId;
  if (overrides.added !== undefined) payload['repositories_added'] = overrides.added.map(listedRepository);
  if (overrides.removed !== undefined)
    payload['repositories_removed'] = overrides.removed.map(listedRepository);
  return payload as OfAction<InstallationRepositoriesEvent, A>;
}

export interface RepositoryOverrides {
  id?: number;
  owner?: string;
  name?: string;
  /** renamed: the old name. */
  fromName?: string;
  /** transferred: the old owner (a user). */
  fromOwner?: string;
}

/** No example of `deleted`: built on `renamed`, without its changes. */
export function repositoryEvent<A extends Action<RepositoryEvent>>(
  action: A,
  overrides: RepositoryOverrides = {},
): OfAction<RepositoryEvent, A> {
  const payload = example('repository', action === 'deleted' ? 'renamed' : action);
  if (action === 'deleted') {
    payload['action'] = action;
    delete payload['changes'];
  }
  const repository = payload['repository'] as Record<string, unknown>;
  if (overrides.id !== undefined) repository['id'] = overrides.id;
  if (overrides.name !== undefined) {
    repository['name'] = overrides.name;
  }
  if (overrides.owner !== undefined)
    (repository['owner'] as Record<string, unknown>)['login'] = overrides.owner;
  const owner = (repository['owner'] as Record<string, unknown>)['login'] as string;
  repository['full_name'] = `${owner}/${repository['name'] as string}`;
  if (action === 'renamed' && overrides.fromName !== undefined)
    payload['changes'] = { repository: { name: { from: overrides.fromName } } };
  if (action === 'transferred' && overrides.fromOwner !== undefined) {
    const changes = payload['changes'] as { owner: { from: { user?: Record<string, unknown> } } };
    changes.owner.from = { user: { ...changes.owner.from.user, login: overrides.fromOwner } };
  }
  return payload as OfAction<RepositoryEvent, A>;
}
