import type { QueuedPullRequest, QueuePolicy, QueueWorld } from '../policy.ts';

/**
 * bors-ng style: one batch at a time holding every pull request approved so far; a passing batch
 * merges whole; a failing batch of several is split in two halves (first half, then second),
 * each tested as its own batch; a failing batch of one is rejected. Source: bors-ng's batcher
 * (`lib/worker/batcher.ex`: one running batch per project, new approvals gather in the waiting
 * batch) and `lib/worker/batcher/divider.ex` (`bisect`: `Enum.split(patches, div(count, 2))`
 * into two new batches). The halves run before the batch of newer approvals, as they were
 * approved first. No automatic retry: a flaky failure bisects like a real one.
 */
export class BorsPolicy implements QueuePolicy {
  readonly name = 'bors-ng';
  private world!: QueueWorld;
  /** Halves waiting after a bisection, first to run first. */
  private readonly split: number[][] = [];
  /** Approvals since the last batch started. */
  private gathering: QueuedPullRequest[] = [];
  private running = false;

  start(world: QueueWorld): void {
    this.world = world;
  }

  onQueued(pr: QueuedPullRequest): void {
    this.gathering.push(pr);
    // Pull requests queued at the same instant are all seen before a batch starts.
    this.world.wakeAt(this.world.now(), () => this.next());
  }

  private next(): void {
    if (this.running) return;
    let batch = this.split.shift();
    if (batch === undefined) {
      if (this.gathering.length === 0) return;
      // bors-ng orders a batch by priority, then approval.
      batch = [...this.gathering]
        .sort((a, b) => Number(b.hotfix) - Number(a.hotfix) || a.queuedAt - b.queuedAt)
        .map((pr) => pr.number);
      this.gathering = [];
    }
    this.running = true;
    const numbers = batch;
    this.world.startRun({
      numbers,
      onDone: ({ passed }) => {
        this.running = false;
        if (passed) for (const n of numbers) this.world.merge(n);
        else if (numbers.length === 1) this.world.eject(numbers[0]!, 'batch of one failed');
        else {
          const half = Math.floor(numbers.length / 2);
          this.split.unshift(numbers.slice(0, half), numbers.slice(half));
        }
        this.next();
      },
    });
  }
}
