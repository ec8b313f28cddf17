/**
 * Where a policy's CI minutes go: runner time by kind of run (e.g. a batch in line or a probe of
 * a bisection) and by how the run ended (passed, failed, or aborted and why). What to improve in
 * an engine is read off this; the totals match the runner time the pool counted.
 */
export interface CiBreakdownEntry {
  kind: string;
  outcome: string;
  runs: number;
  /** Runner time used, ms. */
  ms: number;
}

interface TrackedRun {
  unit: string;
  kind: string;
  ms: number;
}

/**
 * Runs are tracked per tested unit (batch or sub-batch id): the runner time arrives when a run ends
 * or is cancelled, the outcome when the queue reports it, in either order. A unit's last outcome
 * names all its runs (a passed batch aborted later counts as aborted).
 */
export class CiBreakdown {
  private readonly runs: TrackedRun[] = [];
  private readonly outcomes = new Map<string, string>();

  /** A run of `unit` used `ms` of runner time (ended, or cancelled after starting). */
  spent(unit: string, kind: string, ms: number): void {
    this.runs.push({ unit, kind, ms });
  }

  /** How `unit` ended, as the queue reported it. */
  ended(unit: string, outcome: string): void {
    this.outcomes.set(unit, outcome);
  }

  /** Entries by kind and outcome, the largest runner time first. */
  entries(): CiBreakdownEntry[] {
    const byKey = new Map<string, CiBreakdownEntry>();
    for (const run of this.runs) {
      const outcome = this.outcomes.get(run.unit) ?? 'unreported';
      const key = `${run.kind}\u001f${outcome}`;
      const entry = byKey.get(key) ?? { kind: run.kind, outcome, runs: 0, ms: 0 };
      entry.runs++;
      entry.ms += run.ms;
      byKey.set(key, entry);
    }
    return [...byKey.values()].sort((a, b) => b.ms - a.ms);
  }
}

/** CI minutes per merged pull request of each entry, averaged over seeds (missing entries count 0). */
export function averageBreakdowns(
  seeds: readonly { entries: readonly CiBreakdownEntry[]; merged: number }[],
): { kind: string; outcome: string; minutesPerMerged: number }[] {
  const sums = new Map<string, { kind: string; outcome: string; minutesPerMerged: number }>();
  for (const { entries, merged } of seeds) {
    for (const e of entries) {
      const key = `${e.kind}\u001f${e.outcome}`;
      const sum = sums.get(key) ?? { kind: e.kind, outcome: e.outcome, minutesPerMerged: 0 };
      sum.minutesPerMerged += merged === 0 ? 0 : e.ms / 60_000 / merged / seeds.length;
      sums.set(key, sum);
    }
  }
  return [...sums.values()].sort((a, b) => b.minutesPerMerged - a.minutesPerMerged);
}
