import type { components } from '@octokit/openapi-types';

/** Only the fields a test depends on, each named and typed as GitHub's REST schema has it. */
export type DeepPartial<T> = T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

type Schemas = components['schemas'];

export interface PullRequestFixture {
  number: number;
  headSha: string;
  head?: string;
  base?: string;
  state?: 'open' | 'closed';
  merged?: boolean;
  mergeSha?: string | null;
  draft?: boolean;
  /** The author (default `author-<number>`, a person). */
  user?: { login: string; type: 'User' | 'Bot' };
}

/** The tester's app as GitHub shows its bot: the author of the app's draft pull requests. */
export const APP_BOT = { login: 'trainyard[bot]', type: 'Bot' } as const;

export function pullRequestJson(pr: PullRequestFixture): DeepPartial<Schemas['pull-request']> {
  return {
    number: pr.number,
    title: `Pull request #${pr.number}`,
    body: null,
    html_url: `https://github.test/acme/widgets/pull/${pr.number}`,
    state: pr.state ?? 'open',
    merged: pr.merged ?? false,
    merge_commit_sha: pr.mergeSha ?? `test-merge-${pr.number}`,
    draft: pr.draft ?? false,
    user: { id: 1000 + pr.number, login: `author-${pr.number}`, type: 'User', ...pr.user },
    base: { ref: pr.base ?? 'main', sha: 'main-1' },
    head: { ref: pr.head ?? `feature-${pr.number}`, sha: pr.headSha },
    labels: [{ id: 7, name: 'ready', color: '0e8a16', default: false }],
  };
}

export function refJson(branch: string, sha: string): DeepPartial<Schemas['git-ref']> {
  return { ref: `refs/heads/${branch}`, object: { sha, type: 'commit' } };
}

/** A commit as GitHub answers it: its tree is `tree-of-<sha>`. */
export function commitJson(sha: string, parents: string[] = []): DeepPartial<Schemas['commit']> {
  return { sha, commit: { tree: { sha: `tree-of-${sha}` } }, parents: parents.map((p) => ({ sha: p })) };
}

export function checkRunJson(
  run: DeepPartial<Schemas['check-run']> & { id: number; name: string },
): DeepPartial<Schemas['check-run']> {
  return {
    status: 'completed',
    conclusion: 'success',
    details_url: `https://ci.test/runs/${run.id}`,
    output: { title: `${run.name} passed`, summary: '' },
    started_at: '2026-11-20T10:00:00Z',
    completed_at: '2026-11-20T10:05:00Z',
    app: { id: 15368, owner: { avatar_url: 'https://avatars.test/actions' } },
    ...run,
  };
}

export function commitStatusJson(
  status: DeepPartial<Schemas['simple-commit-status']> & { context: string; state: string },
): DeepPartial<Schemas['simple-commit-status']> {
  return {
    description: `${status.context} is ${status.state}`,
    target_url: `https://ci.test/${status.context}`,
    avatar_url: 'https://avatars.test/ci',
    created_at: '2026-11-20T10:00:00Z',
    updated_at: '2026-11-20T10:07:00Z',
    ...status,
  };
}

export function reviewJson(login: string, state: string): DeepPartial<Schemas['pull-request-review']> {
  return { user: { login }, state };
}

export function workflowRunJson(id: number, status: string): DeepPartial<Schemas['workflow-run']> {
  return { id, status, head_sha: 'test-1' };
}
