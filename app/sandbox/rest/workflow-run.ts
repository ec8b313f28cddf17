import type { components } from '@octokit/openapi-types';
import type { Repository, WorkflowRun } from '../entities.ts';
import type { SandboxGithub } from '../model.ts';
import { renderSimpleUser } from './accounts.ts';
import { renderMinimalPulls } from './checks.ts';
import { renderMinimalRepository } from './repository.ts';
import { isoTime, nodeId, repoApiUrl, repoWebUrl, type SandboxUrls } from './urls.ts';

type Schemas = components['schemas'];

/** The sandbox's one workflow file: every simulated CI run belongs to it. */
export const workflowId = 161335;
export const workflowPath = '.github/workflows/ci.yml';

export function renderWorkflowRun(
  github: SandboxGithub,
  urls: SandboxUrls,
  repo: Repository,
  run: WorkflowRun,
): Schemas['workflow-run'] {
  const api = `${repoApiUrl(urls, repo)}/actions/runs/${run.id}`;
  const commit = repo.graph.get(run.headSha)!;
  const repository = renderMinimalRepository(urls, repo);
  return {
    id: run.id,
    name: run.name,
    node_id: nodeId('WorkflowRun', run.id),
    check_suite_id: run.suiteId,
    check_suite_node_id: nodeId('CheckSuite', run.suiteId),
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: workflowPath,
    run_number: run.runNumber,
    run_attempt: 1,
    referenced_workflows: [],
    event: run.event,
    status: github.actions.status(repo, run),
    conclusion: github.actions.conclusion(repo, run),
    workflow_id: workflowId,
    url: api,
    html_url: `${repoWebUrl(urls, repo)}/actions/runs/${run.id}`,
    pull_requests: renderMinimalPulls(urls, repo, run.headSha),
    created_at: isoTime(run.createdAt),
    updated_at: isoTime(run.updatedAt),
    actor: renderSimpleUser(urls, run.actor),
    triggering_actor: renderSimpleUser(urls, run.actor),
    run_started_at: isoTime(run.startedAt ?? run.createdAt),
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    check_suite_url: `${repoApiUrl(urls, repo)}/check-suites/${run.suiteId}`,
    artifacts_url: `${api}/artifacts`,
    cancel_url: `${api}/cancel`,
    rerun_url: `${api}/rerun`,
    previous_attempt_url: null,
    workflow_url: `${repoApiUrl(urls, repo)}/actions/workflows/${workflowId}`,
    head_commit: {
      id: commit.sha,
      tree_id: commit.treeSha,
      message: commit.message,
      timestamp: commit.committer.date,
      author: { name: commit.author.name, email: commit.author.email },
      committer: { name: commit.committer.name, email: commit.committer.email },
    },
    repository,
    head_repository: repository,
    display_title: commit.message.split('\n')[0]!,
  };
}
