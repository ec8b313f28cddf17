import type { QueueReason } from '../../../shared/schemas/queue-reason.schema.ts';
import type {
  BatchPhase,
  CheckRunDetails,
  ConfigRejectedDetails,
  IntegrityFailedDetails,
  LeftDetails,
  QueuedDetails,
} from '../../queue/effects.ts';
import type { PositionBand } from '../../queue/position-band.ts';
import { explainGithubRefusal } from './github-trouble.ts';

/*
 * The words of the "Trainyard" check run, from the facts the engine decided: a one-line title
 * (where the pull request is) and a summary (what it is tested with, when it should merge and
 * why it waits). Facts first, in plain sentences; no pretend-human chatter. The engine publishes
 * again when the facts the title shows change, so the title shows nothing the engine does not
 * compare (app/queue/check-runs.ts).
 */

/** The name of the check run Trainyard keeps on each queued pull request's head. */
export const CHECK_RUN_NAME = 'Trainyard';

export function renderCheckRunTitle(details: CheckRunDetails): string {
  switch (details.kind) {
    case 'queued':
      return renderQueuedTitle(details);
    case 'left':
      return details.merged ? 'Merged by the merge queue' : `Left the queue: ${details.code}`;
    case 'config_rejected':
      return `Invalid .github/trainyard.yml: the last valid configuration is used — ${renderQueuedTitle(details.queued)}`;
    case 'integrity_failed':
      return `Merged, but ${details.base} is not what ${details.batch} tested: the merge queue is paused`;
  }
}

export function renderCheckRunSummary(details: CheckRunDetails): string {
  switch (details.kind) {
    case 'queued':
      return renderQueued(details);
    case 'left':
      return renderLeft(details);
    case 'config_rejected':
      return renderConfigRejected(details);
    case 'integrity_failed':
      return renderIntegrityFailed(details);
  }
}

function renderQueuedTitle(details: QueuedDetails): string {
  const paused = details.paused ? 'Queue paused — ' : '';
  const { batch } = details;
  const stalled = (details.reasons ?? []).filter((r) => r.code === 'check_never_reported');
  if (batch !== null && !batch.merged && stalled.length > 0) {
    const names = stalled.flatMap((r) => r.checks ?? []).join(', ');
    return `${paused}Stalled in ${batch.name}: ${names} never reported on the tested commit`;
  }
  if (batch !== null) return `${paused}${batch.merged ? 'Merged' : BATCH_TITLE[batch.phase](batch.name)}`;
  if (details.waitingFor !== null) {
    const ahead = details.waitingFor.map((n) => `#${n}`).join(', ');
    return `${paused}Waiting for ${ahead} to leave the queue (conflict with a pull request ahead)`;
  }
  return `${paused}Waiting in queue ${details.queueName} at position ${renderPosition(details.position)}`;
}

const BATCH_TITLE: Record<BatchPhase, (name: string) => string> = {
  preparing: (name) => `Preparing the checks of ${name}`,
  testing: (name) => `Checks running in ${name}`,
  passed: (name) => `Checks passed in ${name}; waiting for the batches ahead`,
  failed: (name) => `Checks failed in ${name}; waiting for the batches ahead`,
  bisecting: (name) => `Bisecting ${name} to find the failing pull request`,
  merging: (name) => `Merging with ${name}`,
};

const PHASE: Record<BatchPhase, string> = {
  preparing: 'its test branch is being prepared',
  testing: 'checks are running',
  passed: 'checks passed; it merges after the batches ahead',
  failed: 'checks failed; waiting for the batches ahead before it is split',
  bisecting: 'checks failed; it is being split to find the failing pull request',
  merging: 'merging',
};

function renderQueued(details: QueuedDetails): string {
  const lines: string[] = [];
  const partitions = details.partitions.map((p) => `\`${p}\``).join(', ');
  lines.push(
    `Position ${renderPosition(details.position)} in queue \`${details.queueName}\` (priority ${details.priorityAlias}, ${details.partitions.length > 1 ? 'partitions' : 'partition'} ${partitions}).`,
  );
  if (details.batch !== null) {
    const prs = details.batch.pullRequests.map((n) => `#${n}`).join(', ');
    lines.push(`Tested in ${details.batch.name} with ${prs}: ${PHASE[details.batch.phase]}.`);
    const { laneDepth } = details.batch;
    if (laneDepth !== undefined) {
      const { depth, queued, perCheck, ceiling } = laneDepth;
      lines.push(
        `Its lane tested ${depth === 1 ? 'one batch' : `${depth} batches`} at once when it was built: ${queued} pull request${queued === 1 ? ' was' : 's were'} queued there, and the adaptive mode tests one batch per ${perCheck} queued, at most ${ceiling}.`,
      );
    }
  }
  lines.push(...(details.reasons === undefined ? renderWhyItWaits(details) : renderReasons(details.reasons)));
  if (details.estimatedMergeAt !== null) {
    const late = details.estimatedMergeAtP90 ?? null;
    lines.push(
      `Estimated merge: ${renderTime(details.estimatedMergeAt)}${late === null || late === details.estimatedMergeAt ? '' : `, by ${renderTime(late)} in 9 cases out of 10`}.`,
    );
  }
  return lines.join('\n\n');
}

function renderWhyItWaits(details: QueuedDetails): string[] {
  const why: string[] = [];
  if (details.paused)
    why.push('The merge queue is paused: no batch starts and nothing merges until it is unpaused.');
  if (details.waitingFor !== null) {
    const ahead = details.waitingFor.map((n) => `#${n}`).join(', ');
    why.push(
      `Waiting for ${ahead} to merge or leave the queue: it conflicts with ${details.waitingFor.length > 1 ? 'them' : 'it'}.`,
    );
  } else if (details.batch === null && !details.paused) {
    why.push('Waiting for a batch: the pull requests ahead are tested first.');
  }
  return why;
}

/** Why it waits, one line each, in the reasons' words, each with what to do about it when anything. */
function renderReasons(reasons: readonly QueueReason[]): string[] {
  if (reasons.length === 0) return [];
  return [
    [
      'Why it waits:',
      ...reasons.map(
        (r) =>
          `- \`${r.code}\`: ${r.message}.${r.next_action === null ? '' : ` **What to do:** ${r.next_action}.`}`,
      ),
    ].join('\n'),
  ];
}

function renderLeft(details: LeftDetails): string {
  if (details.merged) return 'Merged by the merge queue.';
  const detail = details.detail === null ? '' : `: ${details.detail}`;
  const next = details.nextAction == null ? '' : `\n\n**What to do:** ${details.nextAction}.`;
  const left = `Left the queue (\`${details.code}\`)${detail}.`;
  const explanation = details.detail === null ? null : explainGithubRefusal(details.detail);
  return `${left}${explanation === null ? '' : `\n\n${explanation}`}${next}`;
}

function renderConfigRejected(details: ConfigRejectedDetails): string {
  const errors = details.errors.map((error) => {
    const at =
      error.line === undefined
        ? ''
        : `line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`}`;
    const where = [error.path === '' ? '' : `\`${error.path}\``, at === '' ? '' : `(${at})`]
      .filter(Boolean)
      .join(' ');
    return `- ${where === '' ? '' : `${where}: `}${error.message}`;
  });
  return [
    '`.github/trainyard.yml` on the default branch is invalid, so the last valid configuration is used until it is fixed:',
    '',
    ...errors,
  ].join('\n');
}

/** `3`, `11–25`, `over 100`. */
function renderPosition(position: PositionBand): string {
  if (position.to === null) return `over ${position.from - 1}`;
  return position.from === position.to ? String(position.from) : `${position.from}–${position.to}`;
}

/** `2026-11-02T14:20:00.000Z` → `2026-11-02 14:20 UTC`: the same for every reader, whatever their locale. */
function renderTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function renderIntegrityFailed(details: IntegrityFailedDetails): string {
  const prs = details.pullRequests.map((n) => `#${n}`).join(', ');
  const partial = details.partial ? ' (merged partially: a merge was refused part way)' : '';
  return [
    `This pull request was merged with ${details.batch}${partial} (${prs}). Once they were merged, the tree of \`${details.base}\` was checked against the tree the merge queue tested, and they differ:`,
    '',
    `- tested: tree \`${details.expectedTree ?? 'unknown'}\` of commit \`${details.testedSha}\``,
    `- landed: tree \`${details.landedTree}\` of commit \`${details.landedSha}\``,
    '',
    `Nobody else pushed to \`${details.base}\` in between, so the merge itself landed code that was not tested. The merge queue paused itself: nothing else merges until someone compares the two commits, repairs \`${details.base}\` if needed, and unpauses the queue.`,
  ].join('\n');
}
