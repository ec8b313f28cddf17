import type { QueuedPullRequest, QueuePolicy, QueueWorld } from '../policy.ts';
import { insertInQueueOrder } from './queue-order.ts';

/**
 * Serial: one pull request at a time, tested on the current base and merged if it passes —
 * Graydon Hoare's "not rocket science rule" as the original bors applied it
 * (https://graydon2.dreamwidth.org/1597.html). Throughput is at most one pull request per CI run.
 */
export class SerialPolicy implements QueuePolicy {
  readonly name = 'serial';
  private world!: QueueWorld;
  private readonly waiting: QueuedPullRequest[] = [];
  private testing: number | null = null;

  start(world: QueueWorld): void {
    this.world = world;
  }

  onQueued(pr: QueuedPullRequest): void {
    insertInQueueOrder(this.waiting, pr, (p) => p);
    // Pull requests queued at the same instant are all seen before a batch starts.
    this.world.wakeAt(this.world.now(), () => this.next());
  }

  private next(): void {
    if (this.testing !== null) return;
    const pr = this.waiting.shift();
    if (pr === undefined) return;
    this.testing = pr.number;
    this.world.startRun({
      numbers: [pr.number],
      onDone: ({ passed }) => {
        this.testing = null;
        if (passed) this.world.merge(pr.number);
        else this.world.eject(pr.number, 'checks failed');
        this.next();
      },
    });
  }
}
