import type { QueuedPullRequest, QueuePolicy, QueueWorld } from '../policy.ts';

/**
 * Oracles: policies that read the hidden truth (bad pull requests, conflicts) and reject what
 * would fail at once, without CI. They are the bounds the benchmark measures against, one per
 * figure, since no single policy is best at both:
 *
 * - `latency`: every good pull request gets its own run the moment it is queued, on unlimited
 *   runners, and merges when it passes (it needs nothing ahead: it knows the rest is good); a
 *   flaky failure is re-run at once. Its time in queue is one CI duration (plus re-runs):
 *   no queue can merge a pull request before one run that contains it has finished.
 * - `ci`: one run at a time holding every good pull request waiting (a flaky failure is re-run
 *   as is): the fewest runs a queue that never leaves waiting pull requests untested can spend.
 *
 * Rejected at once: bad pull requests, and the later side of a conflict (with the base, or with
 * a good pull request queued before it) — exactly what CI would fail.
 */
export class OraclePolicy implements QueuePolicy {
  readonly name: string;
  readonly unlimitedCi: boolean;
  private world!: QueueWorld;
  private readonly queued = new Set<number>();
  private readonly waiting: number[] = [];
  private running = false;

  constructor(private readonly bound: 'latency' | 'ci') {
    this.name = `oracle (${bound})`;
    this.unlimitedCi = bound === 'latency';
  }

  start(world: QueueWorld): void {
    this.world = world;
  }

  onQueued(pr: QueuedPullRequest): void {
    const truth = this.world.truth(pr.number);
    const partner = truth.conflictsWith.find((n) => this.queued.has(n) || this.isMerged(n));
    if (truth.bad || partner !== undefined) {
      this.world.eject(pr.number, truth.bad ? 'bad' : `conflicts with #${partner}`);
      return;
    }
    this.queued.add(pr.number);
    if (this.bound === 'latency') this.runAlone(pr.number);
    else {
      this.waiting.push(pr.number);
      this.world.wakeAt(this.world.now(), () => this.runAll());
    }
  }

  private readonly merged = new Set<number>();

  private isMerged(number: number): boolean {
    return this.merged.has(number);
  }

  private mergeAll(numbers: readonly number[]): void {
    for (const n of numbers) {
      this.queued.delete(n);
      this.merged.add(n);
      this.world.merge(n);
    }
  }

  private runAlone(number: number): void {
    this.world.startRun({
      numbers: [number],
      onDone: ({ passed }) => (passed ? this.mergeAll([number]) : this.runAlone(number)),
    });
  }

  private runAll(batch?: number[]): void {
    if (this.running) return;
    const numbers = batch ?? this.waiting.splice(0);
    if (numbers.length === 0) return;
    this.running = true;
    this.world.startRun({
      numbers,
      onDone: ({ passed }) => {
        this.running = false;
        if (passed) {
          this.mergeAll(numbers);
          this.runAll();
        } else this.runAll(numbers);
      },
    });
  }
}
