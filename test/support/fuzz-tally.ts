import type { FuzzCase } from './fuzz-case.ts';
import { describeCase, type Problem, type ProblemKind } from './fuzz-checks.ts';
import type { WireAnswer } from './fuzz-http.ts';

interface Example {
  /** Operation and first hostile part: examples of one kind differ in it where they can. */
  cause: string;
  /** How to generate it again (seed and index, or fast-check's seed and path). */
  replay: string;
  request: string;
  problem: string;
}

const EXAMPLES_PER_KIND = Number(process.env.FUZZ_EXAMPLES ?? 3);

/** Counts of a fuzz run: answers by status, problems by kind with a few replayable examples. */
export class FuzzTally {
  total = 0;
  readonly statuses = new Map<string, number>();
  readonly problems = new Map<ProblemKind, { count: number; examples: Example[]; operations: Set<string> }>();
  /** Latency of every answered request, in ms. */
  readonly latencies: number[] = [];

  record(c: FuzzCase, answer: WireAnswer, problems: readonly Problem[], replay: string): void {
    this.total++;
    const status = answer.kind === 'answer' ? String(answer.status) : answer.kind;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (answer.kind === 'answer') this.latencies.push(answer.ms);
    for (const problem of problems) {
      const entry = this.problems.get(problem.kind) ?? { count: 0, examples: [], operations: new Set() };
      entry.count++;
      entry.operations.add(c.operation);
      // Examples of different causes: one per operation and hostile part, as far as they go.
      const cause = `${c.operation} ${(c.hostile[0] ?? 'valid').split(':')[0]}`;
      if (entry.examples.length < EXAMPLES_PER_KIND && !entry.examples.some((e) => e.cause === cause)) {
        entry.examples.push({ cause, replay, request: describeCase(c), problem: problem.message });
      }
      this.problems.set(problem.kind, entry);
    }
  }

  count(kind: ProblemKind): number {
    return this.problems.get(kind)?.count ?? 0;
  }

  /** Nearest-rank percentile of the latencies. */
  latency(p: number): number {
    if (this.latencies.length === 0) return 0;
    const sorted = Float64Array.from(this.latencies).sort();
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  }

  statusLine(): string {
    return [...this.statuses.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
  }

  /** Every problem kind with its count, operations and examples; empty when there is none. */
  problemReport(): string {
    const lines: string[] = [];
    for (const [kind, entry] of this.problems) {
      lines.push(`✗ ${kind}: ${entry.count} (${[...entry.operations].slice(0, 6).join(', ')})`);
      for (const e of entry.examples)
        lines.push(`  - ${e.problem}\n    replay: ${e.replay}\n    ${e.request}`);
    }
    return lines.join('\n');
  }
}
