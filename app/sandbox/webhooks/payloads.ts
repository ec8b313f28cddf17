import type { Commit } from '../commit-graph.ts';
import type { Account, PullRequest, Repository } from '../entities.ts';
import { ZERO_SHA } from '../entities.ts';
import type { SandboxGithub } from '../model.ts';
import { renderSimpleUser } from '../rest/accounts.ts';
import { renderCheckRun, renderCheckSuite } from '../rest/checks.ts';
import { renderInstallation } from '../rest/installation.ts';
import { renderIssueComment } from '../rest/issues.ts';
import { authorAssociation, renderPullRequest, renderReview } from '../rest/pull-request.ts';
import { renderRepository } from '../rest/repository.ts';
import { fullName, isoTime, nodeId, repoApiUrl, repoWebUrl, type SandboxUrls } from '../rest/urls.ts';
import type { SandboxEvent } from '../sandbox-events.ts';
import { examplePayload } from './examples.ts';

export interface RenderedWebhook {
  /** X-GitHub-Event. */
  name: string;
  payload: Record<string, unknown>;
  /** Deliveries of one repository go out in order; null for account-wide events. */
  repositoryId: number | null;
  /** The installation of the app under test that receives it. */
  installationId: number;
}

/**
 * The webhook GitHub sends for a sandbox event, built on GitHub's example payload for that
 * event and action with every field the app may read replaced by the sandbox's values. Null
 * when the app is not installed on the repository (GitHub would not send it anything).
 */
export function renderWebhook(
  github: SandboxGithub,
  urls: SandboxUrls,
  event: SandboxEvent,
): RenderedWebhook | null {
  if (event.type === 'installation') {
    const payload = examplePayload('installation', 'created');
    Object.assign(payload, {
      installation: renderInstallation(urls, event.installation),
      repositories: event.repos.map((r) => ({
        id: r.id,
        node_id: nodeId('Repository', r.id),
        name: r.name,
        full_name: fullName(r),
        private: r.private,
      })),
      requester: null,
      sender: renderSimpleUser(urls, event.sender),
    });
    return { name: 'installation', payload, repositoryId: null, installationId: event.installation.id };
  }

  const repo = event.repo;
  const installation = github.access.installationOf(repo, github.app.id);
  if (!installation) return null;
  const common = (name: string, payload: Record<string, unknown>, sender: Account) => {
    // A push carries its own, older form of the repository (see renderPush).
    if (name !== 'push') payload['repository'] = renderWebhookRepository(urls, repo);
    Object.assign(payload, {
      sender: renderSimpleUser(urls, sender),
      installation: { id: installation.id, node_id: nodeId('Integration::Installation', installation.id) },
    });
    if (repo.owner.type === 'Organization') payload['organization'] = renderOrganization(urls, repo.owner);
    else delete payload['organization'];
    delete payload['enterprise'];
    return payload;
  };
  const out = (name: string, payload: Record<string, unknown>): RenderedWebhook => ({
    name,
    payload: common(name, payload, event.sender),
    repositoryId: repo.id,
    installationId: installation.id,
  });

  switch (event.type) {
    case 'push':
      return out('push', renderPush(urls, event));
    case 'branch_created':
      return out(
        'create',
        Object.assign(examplePayload('create'), {
          ref: event.branch,
          ref_type: 'branch',
          master_branch: repo.defaultBranch,
          description: null,
          pusher_type: 'user',
        }),
      );
    case 'branch_deleted':
      return out(
        'delete',
        Object.assign(examplePayload('delete'), {
          ref: event.branch,
          ref_type: 'branch',
          pusher_type: 'user',
        }),
      );
    case 'pull_request': {
      const payload = Object.assign(examplePayload('pull_request', event.action), {
        action: event.action,
        number: event.pull.number,
        pull_request: renderPullRequest(github, urls, repo, event.pull),
      });
      if (event.label) {
        const { id, name, color, description } = event.label;
        payload['label'] = {
          id,
          node_id: nodeId('Label', id),
          url: `${repoApiUrl(urls, repo)}/labels/${encodeURIComponent(name)}`,
          name,
          color,
          default: event.label.default,
          description,
        };
      }
      if (event.before !== undefined) Object.assign(payload, { before: event.before, after: event.after });
      if (event.action === 'edited') payload['changes'] = renderChanges(event.changes ?? {});
      return out('pull_request', payload);
    }
    case 'pull_request_review': {
      const review = renderReview(urls, repo, event.pull, event.review);
      return out(
        'pull_request_review',
        Object.assign(examplePayload('pull_request_review', 'submitted'), {
          action: 'submitted',
          review: { ...review, state: review.state.toLowerCase() },
          pull_request: renderPullRequest(github, urls, repo, event.pull),
        }),
      );
    }
    case 'issue_comment': {
      const example = examplePayload('issue_comment', event.action);
      const payload = Object.assign(example, {
        action: event.action,
        issue: renderIssue(github, urls, repo, event.pull, example['issue']),
        comment: renderIssueComment(urls, repo, event.comment),
      });
      if (event.action === 'edited') payload['changes'] = { body: { from: event.previousBody ?? '' } };
      return out('issue_comment', payload);
    }
    case 'check_run': {
      const run = renderCheckRun(urls, repo, event.run);
      const suite = repo.checkSuites.get(event.run.suiteId)!;
      const {
        repository: _repository,
        head_commit: _headCommit,
        ...suiteFields
      } = renderCheckSuite(github, urls, repo, suite);
      return out(
        'check_run',
        Object.assign(examplePayload('check_run', event.action), {
          action: event.action,
          check_run: { ...run, check_suite: suiteFields },
        }),
      );
    }
    case 'check_suite':
      return out(
        'check_suite',
        Object.assign(examplePayload('check_suite', event.action), {
          action: event.action,
          check_suite: renderCheckSuite(github, urls, repo, event.suite),
        }),
      );
    case 'status':
      return out('status', renderStatusPayload(urls, event));
  }
}

/** Webhooks carry the repository with its custom properties (none in the sandbox). */
function renderWebhookRepository(urls: SandboxUrls, repo: Repository) {
  return { ...renderRepository(urls, repo), custom_properties: {} };
}

function renderOrganization(urls: SandboxUrls, org: Account) {
  const api = `${urls.api}/orgs/${org.login}`;
  return {
    login: org.login,
    id: org.id,
    node_id: nodeId('Organization', org.id),
    url: api,
    repos_url: `${api}/repos`,
    events_url: `${api}/events`,
    hooks_url: `${api}/hooks`,
    issues_url: `${api}/issues`,
    members_url: `${api}/members{/member}`,
    public_members_url: `${api}/public_members{/member}`,
    avatar_url: `${urls.web}/avatars/u/${org.id}?v=4`,
    description: null,
  };
}

function renderChanges(changes: NonNullable<Extract<SandboxEvent, { type: 'pull_request' }>['changes']>) {
  return {
    ...(changes.title !== undefined ? { title: { from: changes.title } } : {}),
    ...(changes.body !== undefined ? { body: { from: changes.body } } : {}),
    ...(changes.base !== undefined
      ? { base: { ref: { from: changes.base.ref }, sha: { from: changes.base.sha } } }
      : {}),
  };
}

/** A pull request seen as an issue, as issue_comment payloads carry it. */
function renderIssue(
  github: SandboxGithub,
  urls: SandboxUrls,
  repo: Repository,
  pull: PullRequest,
  example: unknown,
): Record<string, unknown> {
  const pr = renderPullRequest(github, urls, repo, pull);
  const api = `${repoApiUrl(urls, repo)}/issues/${pull.number}`;
  return {
    ...(typeof example === 'object' && example !== null ? example : {}),
    url: api,
    repository_url: repoApiUrl(urls, repo),
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: pr.html_url,
    // An issue id differs from its pull request's id on GitHub; keep them apart here too.
    id: pull.id + 1_000_000_000,
    node_id: nodeId('Issue', pull.id),
    number: pull.number,
    title: pull.title,
    user: pr.user,
    labels: pr.labels,
    state: pull.state,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: pr.comments,
    created_at: pr.created_at,
    updated_at: pr.updated_at,
    closed_at: pr.closed_at,
    author_association: authorAssociation(repo, pull.user),
    active_lock_reason: null,
    draft: pull.draft,
    pull_request: {
      url: pr.url,
      html_url: pr.html_url,
      diff_url: pr.diff_url,
      patch_url: pr.patch_url,
      merged_at: pr.merged_at,
    },
    body: pr.body,
    performed_via_github_app: null,
    state_reason: null,
    timeline_url: `${api}/timeline`,
    reactions: {
      url: `${api}/reactions`,
      total_count: 0,
      '+1': 0,
      '-1': 0,
      laugh: 0,
      hooray: 0,
      confused: 0,
      heart: 0,
      rocket: 0,
      eyes: 0,
    },
  };
}

/** A commit as push payloads list it, with the files it added, removed and modified. */
function renderPushCommit(urls: SandboxUrls, repo: Repository, commit: Commit) {
  const parent = repo.graph.get(commit.parents[0] ?? '');
  const changes = repo.graph.diff(parent?.tree ?? new Map(), commit.tree);
  const person = (p: Commit['author']) => ({ name: p.name, email: p.email, username: p.name });
  return {
    id: commit.sha,
    tree_id: commit.treeSha,
    distinct: true,
    message: commit.message,
    timestamp: commit.committer.date,
    url: `${repoWebUrl(urls, repo)}/commit/${commit.sha}`,
    author: person(commit.author),
    committer: person(commit.committer),
    added: changes.filter((c) => c.status === 'added').map((c) => c.path),
    removed: changes.filter((c) => c.status === 'removed').map((c) => c.path),
    modified: changes.filter((c) => c.status === 'modified').map((c) => c.path),
  };
}

function renderPush(urls: SandboxUrls, event: Extract<SandboxEvent, { type: 'push' }>) {
  const { repo } = event;
  const head = event.after === ZERO_SHA ? undefined : repo.graph.get(event.after);
  const payload = examplePayload('push');
  const web = repoWebUrl(urls, repo);
  // Push payloads carry the repository in an older form: epoch seconds, an owner with name and email.
  const repository = {
    ...renderWebhookRepository(urls, repo),
    owner: { ...renderSimpleUser(urls, repo.owner), name: repo.owner.login, email: null },
    created_at: Math.floor(repo.createdAt / 1000),
    pushed_at: Math.floor(repo.pushedAt / 1000),
    updated_at: isoTime(repo.pushedAt),
    stargazers: 0,
    master_branch: repo.defaultBranch,
    ...(repo.owner.type === 'Organization' ? { organization: repo.owner.login } : {}),
  };
  Object.assign(payload, {
    ref: `refs/heads/${event.branch}`,
    before: event.before,
    after: event.after,
    created: event.before === ZERO_SHA,
    deleted: event.after === ZERO_SHA,
    forced: event.forced,
    base_ref: null,
    compare:
      event.before === ZERO_SHA
        ? `${web}/commit/${event.after.slice(0, 12)}`
        : `${web}/compare/${event.before.slice(0, 12)}...${event.after.slice(0, 12)}`,
    commits: event.commits.map((c) => renderPushCommit(urls, repo, c)),
    head_commit: head ? renderPushCommit(urls, repo, head) : null,
    pusher: {
      name: event.sender.login,
      email: `${event.sender.id}+${event.sender.login}@users.noreply.github.com`,
    },
  });
  return Object.assign(payload, { repository });
}

function renderStatusPayload(urls: SandboxUrls, event: Extract<SandboxEvent, { type: 'status' }>) {
  const { repo, status } = event;
  const commit = repo.graph.get(status.sha)!;
  const api = repoApiUrl(urls, repo);
  const person = (p: Commit['author']) => ({ name: p.name, email: p.email, date: p.date });
  return Object.assign(examplePayload('status'), {
    id: status.id,
    sha: status.sha,
    name: fullName(repo),
    target_url: status.targetUrl,
    avatar_url: `${urls.web}/avatars/u/${status.creator.id}?v=4`,
    context: status.context,
    description: status.description,
    state: status.state,
    commit: {
      sha: commit.sha,
      node_id: nodeId('Commit', commit.sha),
      commit: {
        author: person(commit.author),
        committer: person(commit.committer),
        message: commit.message,
        tree: { sha: commit.treeSha, url: `${api}/git/trees/${commit.treeSha}` },
        url: `${api}/git/commits/${commit.sha}`,
        comment_count: 0,
        verification: {
          verified: false,
          reason: 'unsigned',
          signature: null,
          payload: null,
          verified_at: null,
        },
      },
      url: `${api}/commits/${commit.sha}`,
      html_url: `${repoWebUrl(urls, repo)}/commit/${commit.sha}`,
      comments_url: `${api}/commits/${commit.sha}/comments`,
      author: null,
      committer: null,
      parents: commit.parents.map((sha) => ({
        sha,
        url: `${api}/commits/${sha}`,
        html_url: `${repoWebUrl(urls, repo)}/commit/${sha}`,
      })),
    },
    branches: [...repo.branches]
      .filter(([, sha]) => sha === status.sha)
      .map(([name, sha]) => ({ name, commit: { sha, url: `${api}/commits/${sha}` }, protected: false })),
    created_at: isoTime(status.createdAt),
    updated_at: isoTime(status.createdAt),
  });
}
