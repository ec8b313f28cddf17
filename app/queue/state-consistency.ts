import type { Batch, QueueState } from './state.ts';

/** What makes a well-typed state impossible; empty when consistent (checked after the shape, see queueStateSchema). */
export function findInconsistencies(state: QueueState): string[] {
  const problems: string[] = [];
  for (const [key, session] of Object.entries(state.sessions)) {
    if (key !== String(session.number)) problems.push(`session ${key} holds pull request #${session.number}`);
  }
  for (const lane of state.lanes) {
    const seen = new Set<number>();
    for (const batch of lane.batches) {
      for (const number of batch.numbers) {
        const session = state.sessions[String(number)];
        const merged = batch.phase === 'merging' && batch.merged.includes(number);
        if (session === undefined && !merged)
          problems.push(`${batch.name} holds #${number}, which is not queued`);
        else if (
          session !== undefined &&
          (session.base !== lane.base || !session.partitions.includes(lane.partition))
        ) {
          problems.push(
            `${batch.name} holds #${number}, which is not in lane ${lane.base}/${lane.partition}`,
          );
        }
        if (seen.has(number)) problems.push(`#${number} is twice in lane ${lane.base}/${lane.partition}`);
        seen.add(number);
      }
      problems.push(...checkBatchShape(batch));
    }
  }
  return problems;
}

function checkBatchShape(batch: Batch): string[] {
  if (batch.phase === 'bisecting') {
    const { lo, hi, subBatches } = batch.bisection;
    // hi = length + 1: the whole batch is not known to fail (bisect_aside, after a culprit).
    if (!(lo < hi && hi <= batch.numbers.length + 1))
      return [`${batch.name}: bisection bounds ${lo}..${hi} are wrong`];
    if (subBatches.some((s) => s.length <= lo || s.length >= hi))
      return [`${batch.name}: a probe is out of bounds`];
  }
  if (batch.phase === 'merging' && batch.merged.some((n) => !batch.numbers.includes(n))) {
    return [`${batch.name}: merged a pull request it does not hold`];
  }
  return [];
}
