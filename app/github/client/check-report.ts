import type { components } from '@octokit/openapi-types';
import type { CheckState } from '../../config/conditions/pull-request-facts.ts';
import type { CheckReport } from '../../queue/inputs.ts';

type CheckRun = Pick<
  components['schemas']['check-run'],
  'name' | 'status' | 'conclusion' | 'details_url' | 'html_url' | 'output' | 'started_at' | 'completed_at'
> & { app: { owner?: { avatar_url?: string } | null } | null };

type CommitStatus = Pick<
  components['schemas']['simple-commit-status'],
  'context' | 'state' | 'description' | 'target_url' | 'avatar_url' | 'created_at' | 'updated_at'
>;

/**
 * A check run as the engine sees it. Until it completes it is pending, whatever GitHub's phase
 * (queued, in_progress, waiting, requested, pending); a completed run's conclusion is kept as is.
 */
export function parseCheckRun(run: CheckRun): CheckReport {
  return {
    name: run.name,
    state: run.status === 'completed' ? stateOfConclusion(run.conclusion) : 'pending',
    url: run.details_url ?? run.html_url ?? null,
    description: run.output.title ?? '',
    avatarUrl: run.app?.owner?.avatar_url ?? null,
    startedAt: run.started_at ?? null,
    completedAt: run.status === 'completed' ? (run.completed_at ?? null) : null,
  };
}

function stateOfConclusion(conclusion: string | null): CheckState {
  switch (conclusion) {
    case 'success':
    case 'failure':
    case 'neutral':
    case 'cancelled':
    case 'skipped':
    case 'timed_out':
    case 'action_required':
    case 'stale':
      return conclusion;
    // GitHub Actions reports a workflow that could not start (bad YAML) this way: it failed.
    case 'startup_failure':
      return 'failure';
    default:
      // A completed run always has a conclusion; without one nothing is known yet.
      return 'pending';
  }
}

/** A commit status (GitHub's older CI API): its `context` is the check's name. */
export function parseCommitStatus(status: CommitStatus): CheckReport {
  const state = stateOfStatus(status.state);
  return {
    name: status.context,
    state,
    url: status.target_url ?? null,
    description: status.description ?? '',
    avatarUrl: status.avatar_url ?? null,
    startedAt: status.created_at,
    // A status has no completion time: its last update is when it reached a final state.
    completedAt: state === 'pending' ? null : status.updated_at,
  };
}

function stateOfStatus(state: string): CheckState {
  switch (state) {
    case 'success':
    case 'failure':
    case 'error':
      return state;
    default:
      return 'pending';
  }
}
