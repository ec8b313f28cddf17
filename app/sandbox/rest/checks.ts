import type { components } from '@octokit/openapi-types';
import type { CheckRun, CheckSuite, CommitStatus, Repository } from '../entities.ts';
import type { SandboxGithub } from '../model.ts';
import { renderIntegration, renderSimpleUser } from './accounts.ts';
import { renderMinimalRepository } from './repository.ts';
import { isoOrNull, isoTime, nodeId, repoApiUrl, repoWebUrl, type SandboxUrls } from './urls.ts';

type Schemas = components['schemas'];

/** The open pull requests whose head is `sha`, as check runs and suites list them. */
export function renderMinimalPulls(
  urls: SandboxUrls,
  repo: Repository,
  sha: string,
): Schemas['pull-request-minimal'][] {
  const repoRef = { id: repo.id, url: repoApiUrl(urls, repo), name: repo.name };
  return [...repo.pulls.values()]
    .filter((p) => p.state === 'open' && p.headSha === sha)
    .map((p) => ({
      id: p.id,
      number: p.number,
      url: `${repoApiUrl(urls, repo)}/pulls/${p.number}`,
      head: { ref: p.head, sha: p.headSha, repo: repoRef },
      base: { ref: p.base, sha: repo.branches.get(p.base) ?? p.headSha, repo: repoRef },
    }));
}

export function renderCheckRun(urls: SandboxUrls, repo: Repository, run: CheckRun): Schemas['check-run'] {
  const api = `${repoApiUrl(urls, repo)}/check-runs/${run.id}`;
  return {
    id: run.id,
    head_sha: run.headSha,
    node_id: nodeId('CheckRun', run.id),
    external_id: run.externalId ?? '',
    url: api,
    html_url: `${repoWebUrl(urls, repo)}/runs/${run.id}`,
    details_url: run.detailsUrl ?? `${repoWebUrl(urls, repo)}/runs/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    started_at: isoOrNull(run.startedAt),
    completed_at: isoOrNull(run.completedAt),
    output: {
      title: run.title,
      summary: run.summary,
      text: run.text,
      annotations_count: 0,
      annotations_url: `${api}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.suiteId },
    app: renderIntegration(urls, run.app, repo.createdAt),
    pull_requests: renderMinimalPulls(urls, repo, run.headSha),
  };
}

export function renderCheckSuite(
  github: SandboxGithub,
  urls: SandboxUrls,
  repo: Repository,
  suite: CheckSuite,
): Schemas['check-suite'] {
  const commit = repo.graph.get(suite.headSha)!;
  const runs = github.checks.runsOfSuite(repo, suite);
  const latest = new Set(runs.map((r) => r.name)).size;
  return {
    id: suite.id,
    node_id: nodeId('CheckSuite', suite.id),
    head_branch: suite.headBranch,
    head_sha: suite.headSha,
    status: github.checks.suiteStatus(repo, suite),
    conclusion: github.checks.suiteConclusion(repo, suite),
    url: `${repoApiUrl(urls, repo)}/check-suites/${suite.id}`,
    before: commit.parents[0] ?? null,
    after: suite.headSha,
    pull_requests: renderMinimalPulls(urls, repo, suite.headSha),
    app: renderIntegration(urls, suite.app, repo.createdAt),
    repository: renderMinimalRepository(urls, repo),
    created_at: isoTime(suite.createdAt),
    updated_at: isoTime(suite.updatedAt),
    head_commit: {
      id: commit.sha,
      tree_id: commit.treeSha,
      message: commit.message,
      timestamp: commit.committer.date,
      author: { name: commit.author.name, email: commit.author.email },
      committer: { name: commit.committer.name, email: commit.committer.email },
    },
    latest_check_runs_count: latest,
    check_runs_url: `${repoApiUrl(urls, repo)}/check-suites/${suite.id}/check-runs`,
    rerequestable: true,
    runs_rerequestable: true,
  };
}

export function renderStatus(urls: SandboxUrls, repo: Repository, status: CommitStatus): Schemas['status'] {
  return {
    url: `${repoApiUrl(urls, repo)}/statuses/${status.sha}`,
    avatar_url: `${urls.web}/avatars/u/${status.creator.id}?v=4`,
    id: status.id,
    node_id: nodeId('StatusContext', status.id),
    state: status.state,
    description: status.description,
    target_url: status.targetUrl,
    context: status.context,
    created_at: isoTime(status.createdAt),
    updated_at: isoTime(status.createdAt),
    creator: renderSimpleUser(urls, status.creator),
  };
}

/** GET /commits/{ref}/status, with `statuses` as the page asked for. */
export function renderCombinedStatus(
  urls: SandboxUrls,
  repo: Repository,
  params: { sha: string; state: string; statuses: CommitStatus[]; totalCount: number },
): Schemas['combined-commit-status'] {
  return {
    state: params.state,
    statuses: params.statuses.map((s) => {
      const { creator: _creator, ...simple } = renderStatus(urls, repo, s);
      return simple;
    }),
    sha: params.sha,
    total_count: params.totalCount,
    repository: renderMinimalRepository(urls, repo),
    commit_url: `${repoApiUrl(urls, repo)}/commits/${params.sha}`,
    url: `${repoApiUrl(urls, repo)}/commits/${params.sha}/status`,
  };
}
