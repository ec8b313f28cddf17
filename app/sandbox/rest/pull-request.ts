import type { components } from '@octokit/openapi-types';
import type { Account, Label, PullRequest, Repository } from '../entities.ts';
import { mergeabilityStillComputing } from '../mergeability.ts';
import type { SandboxGithub } from '../model.ts';
import { renderSimpleUser } from './accounts.ts';
import { renderRepository } from './repository.ts';
import { isoOrNull, isoTime, nodeId, repoApiUrl, repoWebUrl, type SandboxUrls } from './urls.ts';

type Schemas = components['schemas'];

export function renderLabel(urls: SandboxUrls, repo: Repository, label: Label): Schemas['label'] {
  return {
    id: label.id,
    node_id: nodeId('Label', label.id),
    url: `${repoApiUrl(urls, repo)}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    description: label.description,
    color: label.color,
    default: label.default,
  };
}

/** How GitHub relates an account to a repository in `author_association`. */
export function authorAssociation(repo: Repository, account: Account): Schemas['author-association'] {
  if (repo.owner.id === account.id) return 'OWNER';
  if (repo.collaborators.has(account.login.toLowerCase())) return 'COLLABORATOR';
  if ([...repo.pulls.values()].some((p) => p.merged && p.user.id === account.id)) return 'CONTRIBUTOR';
  return 'NONE';
}

/** The base branch's sha as GitHub shows it: current while open, as of closing afterwards. */
function baseSha(repo: Repository, pull: PullRequest): string {
  return (pull.state === 'open' ? repo.branches.get(pull.base) : pull.closedBaseSha) ?? pull.headSha;
}

/** The fields shared by GET /pulls (simple) and GET /pulls/{n} (full). */
function renderPullCommon(urls: SandboxUrls, repo: Repository, pull: PullRequest) {
  const api = `${repoApiUrl(urls, repo)}/pulls/${pull.number}`;
  const issue = `${repoApiUrl(urls, repo)}/issues/${pull.number}`;
  const web = `${repoWebUrl(urls, repo)}/pull/${pull.number}`;
  const statuses = `${repoApiUrl(urls, repo)}/statuses/${pull.headSha}`;
  const repository = renderRepository(urls, repo);
  const owner = renderSimpleUser(urls, repo.owner);
  const labels = pull.labels.map((name) => renderLabel(urls, repo, repo.labels.get(name.toLowerCase())!));
  return {
    url: api,
    id: pull.id,
    node_id: nodeId('PullRequest', pull.id),
    html_url: web,
    diff_url: `${web}.diff`,
    patch_url: `${web}.patch`,
    issue_url: issue,
    commits_url: `${api}/commits`,
    review_comments_url: `${api}/comments`,
    review_comment_url: `${repoApiUrl(urls, repo)}/pulls/comments{/number}`,
    comments_url: `${issue}/comments`,
    statuses_url: statuses,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: renderSimpleUser(urls, pull.user),
    body: pull.body === '' ? null : pull.body,
    labels,
    milestone: null,
    active_lock_reason: null,
    created_at: isoTime(pull.createdAt),
    updated_at: isoTime(pull.updatedAt),
    closed_at: isoOrNull(pull.closedAt),
    merged_at: isoOrNull(pull.mergedAt),
    merge_commit_sha: pull.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: {
      label: `${repo.owner.login}:${pull.head}`,
      ref: pull.head,
      repo: repository,
      sha: pull.headSha,
      user: owner,
    },
    base: {
      label: `${repo.owner.login}:${pull.base}`,
      ref: pull.base,
      repo: repository,
      sha: baseSha(repo, pull),
      user: owner,
    },
    _links: {
      self: { href: api },
      html: { href: web },
      issue: { href: issue },
      comments: { href: `${issue}/comments` },
      review_comments: { href: `${api}/comments` },
      review_comment: { href: `${repoApiUrl(urls, repo)}/pulls/comments{/number}` },
      commits: { href: `${api}/commits` },
      statuses: { href: statuses },
    },
    author_association: authorAssociation(repo, pull.user),
    auto_merge: null,
    draft: pull.draft,
  };
}

export function renderPullRequestSimple(
  urls: SandboxUrls,
  repo: Repository,
  pull: PullRequest,
): Schemas['pull-request-simple'] {
  const common = renderPullCommon(urls, repo, pull);
  return { ...common, labels: common.labels.map((l) => ({ ...l, description: l.description ?? '' })) };
}

/** GET /pulls/{n}; also the `pull_request` of webhook payloads. */
export function renderPullRequest(
  github: SandboxGithub,
  urls: SandboxUrls,
  repo: Repository,
  pull: PullRequest,
): Schemas['pull-request'] {
  const computing = pull.state === 'open' && mergeabilityStillComputing(repo);
  const mergeable = computing ? null : github.pulls.mergeable(repo, pull);
  const files = github.pulls.files(repo, pull.number);
  const commits = repo.graph.commitsBetween(
    repo.graph.mergeBase(baseSha(repo, pull), pull.headSha),
    pull.headSha,
  ).length;
  const mergeableState =
    pull.state !== 'open' || computing
      ? 'unknown'
      : pull.draft
        ? 'draft'
        : mergeable === false
          ? 'dirty'
          : 'clean';
  return {
    ...renderPullCommon(urls, repo, pull),
    merged: pull.merged,
    mergeable,
    rebaseable: mergeable,
    mergeable_state: mergeableState,
    merged_by: pull.mergedBy ? renderSimpleUser(urls, pull.mergedBy) : null,
    comments: [...repo.comments.values()].filter((c) => c.issueNumber === pull.number).length,
    review_comments: 0,
    maintainer_can_modify: false,
    commits,
    additions: files.filter((f) => f.status !== 'removed').length,
    deletions: files.filter((f) => f.status !== 'added').length,
    changed_files: files.length,
  };
}

export function renderReview(
  urls: SandboxUrls,
  repo: Repository,
  pull: PullRequest,
  review: PullRequest['reviews'][number],
): Schemas['pull-request-review'] {
  const web = `${repoWebUrl(urls, repo)}/pull/${pull.number}`;
  return {
    id: review.id,
    node_id: nodeId('PullRequestReview', review.id),
    user: renderSimpleUser(urls, review.user),
    body: review.body,
    state: review.state,
    html_url: `${web}#pullrequestreview-${review.id}`,
    pull_request_url: `${repoApiUrl(urls, repo)}/pulls/${pull.number}`,
    _links: {
      html: { href: `${web}#pullrequestreview-${review.id}` },
      pull_request: { href: `${repoApiUrl(urls, repo)}/pulls/${pull.number}` },
    },
    submitted_at: isoTime(review.submittedAt),
    commit_id: review.commitId,
    author_association: authorAssociation(repo, review.user),
  };
}
