import { orderLane } from './ordering.ts';
import type { Batch, Lane, QueueState, Session } from './state.ts';
import { findLane, putSession, type Transition } from './transition.ts';

/** The title of a queued pull request's "Trainyard" check run: where it is and why. */
export function renderCheckRunTitle(
  state: QueueState,
  session: Session,
  position: number,
  batch: Batch | undefined,
): string {
  const paused = state.pause.paused ? 'Queue paused — ' : '';
  if (batch !== undefined) return `${paused}${describeBatch(batch, session.number)}`;
  if (session.waitingForAhead !== null) {
    const ahead = session.waitingForAhead.map((n) => `#${n}`).join(', ');
    return `${paused}Waiting for ${ahead} to leave the queue (conflict with a pull request ahead)`;
  }
  return `${paused}Waiting in queue ${session.queueName} at position ${position}`;
}

function describeBatch(batch: Batch, number: number): string {
  switch (batch.phase) {
    case 'bisecting':
      return `Bisecting ${batch.name} to find the failing pull request`;
    case 'merging':
      return batch.merged.includes(number) ? 'Merged' : `Merging with ${batch.name}`;
    case 'trial':
      switch (batch.trial.phase) {
        case 'preparing':
          return `Preparing the checks of ${batch.name}`;
        case 'testing':
          return `Checks running in ${batch.name}`;
        case 'passed':
          return `Checks passed in ${batch.name}; waiting for the batches ahead`;
        case 'failed':
          return `Checks failed in ${batch.name}; waiting for the batches ahead`;
      }
  }
}

/** Publishes the check run of every queued pull request whose title changed. */
export function planCheckRuns(t: Transition): void {
  const positions = new Map<string, Map<number, number>>();
  const positionIn = (lane: Lane, number: number): number => {
    const key = `${lane.base}\u0000${lane.partition}`;
    let order = positions.get(key);
    if (order === undefined) {
      order = new Map(orderLane(t.state, lane).map((n, i) => [n, i + 1]));
      positions.set(key, order);
    }
    return order.get(number) ?? 0;
  };
  for (const session of Object.values(t.state.sessions)) {
    const partition = session.partitions[0]!;
    const lane = findLane(t.state, session.base, partition) ?? { base: session.base, partition, batches: [] };
    const batch = lane.batches.find((b) => b.numbers.includes(session.number));
    const title = renderCheckRunTitle(t.state, session, positionIn(lane, session.number), batch);
    if (title === session.checkRunTitle) continue;
    const version = session.checkRunVersion + 1;
    t.effects.push({
      type: 'publish_check_run',
      key: `publish_check_run:${session.sessionId}:${version}`,
      number: session.number,
      headSha: session.headSha,
      status: batch === undefined ? 'queued' : 'in_progress',
      conclusion: null,
      title,
      summary: `${title}. Queue rule ${session.queueName}, priority ${session.priorityAlias}, partitions ${session.partitions.join(', ')}.`,
    });
    putSession(t, { ...session, checkRunTitle: title, checkRunVersion: version });
  }
}
