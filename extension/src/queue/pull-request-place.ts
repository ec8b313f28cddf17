import { DEFAULT_PARTITION_NAME } from '../../../shared/schemas/default-names.ts';
import type {
  Batch,
  MergeQueueStatus,
  QueuedPullRequest,
} from '../../../shared/schemas/merge-queue.schema.ts';
import type { QueueReason } from '../../../shared/schemas/queue-reason.schema.ts';

/** One reason a pull request is where it is, as the server words it (docs/api.md, "Reasons"). */
export type PlaceReason = QueueReason;

/** Where one queued pull request stands: its place in its lane, state, estimate and reason. */
export interface PullRequestPlace {
  pr: QueuedPullRequest;
  /** 1-based: the pull requests of the lane's batches in batch order, then the waiting ones. */
  position: number;
  lane: string;
  /** The top-level batch holding it, or null while it waits for one. */
  batch: Batch | null;
  state: string;
  eta: string | null;
  etaP90: string | null;
  reason: string | null;
  reasons: PlaceReason[];
}

/** The late estimate, the reasons and the head branch the server gives. */
export function optionalFields(pr: QueuedPullRequest): {
  etaP90: string | null;
  reasons: PlaceReason[];
  headRef: string | null;
} {
  return { etaP90: pr.estimated_merge_at_p90, reasons: pr.reasons, headRef: pr.head_ref };
}

function laneOf(pr: QueuedPullRequest): string {
  return pr.scopes[0] ?? DEFAULT_PARTITION_NAME;
}

function human(code: string): string {
  return code.replaceAll('_', ' ');
}

/** Why it is where it is, when the server gives no reason: from its batch and the pause. */
function derivedReason(status: MergeQueueStatus, batch: Batch | null): string {
  if (status.pause) return `queue paused: ${status.pause.reason}`;
  if (!batch) return 'waiting for a batch';
  const checks = `${batch.checks_summary.passed}/${batch.checks_summary.total} checks passed`;
  switch (batch.status.code) {
    case 'running':
      return `testing in ${batch.name} (${checks})`;
    case 'bisecting':
      return `${batch.name} failed; bisecting to find the culprit`;
    case 'waiting_for_previous_batches':
      return `${batch.name} tested; waiting for the batches ahead to merge`;
    default:
      return `${batch.name}: ${human(batch.status.code)}`;
  }
}

/** Every queued pull request's place, by number. */
export function placesOf(status: MergeQueueStatus): Map<number, PullRequestPlace> {
  const places = new Map<number, PullRequestPlace>();
  const byId = new Map(status.batches.map((b) => [b.id, b]));
  const taken = new Map<string, number>();
  const add = (pr: QueuedPullRequest, lane: string, batch: Batch | null) => {
    if (places.has(pr.number)) return;
    const position = (taken.get(lane) ?? 0) + 1;
    taken.set(lane, position);
    const extra = optionalFields(pr);
    places.set(pr.number, {
      pr,
      position,
      lane,
      batch,
      state: batch ? human(batch.status.code) : status.pause ? 'paused' : 'waiting',
      eta: pr.estimated_merge_at,
      etaP90: extra.etaP90,
      reason: extra.reasons[0]?.message ?? derivedReason(status, batch),
      reasons: extra.reasons,
    });
  };
  for (const [lane, ids] of Object.entries(status.scope_queues)) {
    for (const id of ids) {
      const batch = byId.get(id);
      for (const pr of batch?.pull_requests ?? []) add(pr, lane, batch ?? null);
    }
  }
  // Batches not listed in a lane (should not happen) still count, in the default lane.
  for (const batch of status.batches) for (const pr of batch.pull_requests) add(pr, laneOf(pr), batch);
  for (const pr of status.waiting_pull_requests) add(pr, laneOf(pr), null);
  return places;
}

/** Who "me" is: the signed-in GitHub login and the workspace's current branch. */
export interface Me {
  login: string | null;
  branch: string | null;
}

/** Whether it is the pull request of the workspace's current branch. */
export function isOnBranch(place: PullRequestPlace, me: Me): boolean {
  return me.branch !== null && optionalFields(place.pr).headRef === me.branch;
}

/** My pull requests: the current branch's first, then mine by position. */
export function myPlaces(places: Map<number, PullRequestPlace>, me: Me): PullRequestPlace[] {
  const login = me.login?.toLowerCase() ?? null;
  const onBranch = (p: PullRequestPlace) => isOnBranch(p, me);
  return [...places.values()]
    .filter((p) => onBranch(p) || (login !== null && p.pr.author.login.toLowerCase() === login))
    .sort((a, b) => Number(onBranch(b)) - Number(onBranch(a)) || a.position - b.position);
}
