import type { QueuedPullRequest, QueuePolicy, QueueWorld, RunHandle } from '../policy.ts';
import { insertInQueueOrder } from './queue-order.ts';

/**
 * GitHub merge queue style. Source: GitHub Docs, "Managing a merge queue" and "Merging a pull
 * request with a merge queue" (docs.github.com): each queued pull request gets a merge group —
 * the base plus every pull request ahead of it plus itself — built by CI; "Build concurrency"
 * caps how many are built at once (the first D of the queue); with "Only merge non-failing pull
 * requests" a pull request merges only when its own group passed, in queue order; when a
 * group's required checks fail, its pull request is removed from the queue and the groups
 * behind it are rebuilt without it.
 */
export class GithubPolicy implements QueuePolicy {
  readonly name: string;
  private world!: QueueWorld;
  private readonly entries: Entry[] = [];

  constructor(private readonly buildConcurrency: number) {
    this.name = `github (D=${buildConcurrency})`;
  }

  start(world: QueueWorld): void {
    this.world = world;
  }

  onQueued(pr: QueuedPullRequest): void {
    const building = this.entries.filter((e) => e.state !== 'waiting').length;
    insertInQueueOrder(this.entries, { pr, state: 'waiting', run: null }, (e) => e.pr, building);
    // Pull requests queued at the same instant are all in line before groups are built.
    this.world.wakeAt(this.world.now(), () => this.build());
  }

  /** Starts the groups of the first D entries that are not built yet. */
  private build(): void {
    const limit = Math.min(this.buildConcurrency, this.entries.length);
    for (let i = 0; i < limit; i++) {
      const entry = this.entries[i]!;
      if (entry.state !== 'waiting') continue;
      const numbers = this.entries.slice(0, i + 1).map((e) => e.pr.number);
      entry.state = 'building';
      entry.run = this.world.startRun({
        numbers,
        onDone: ({ passed }) => this.finished(entry, passed),
      });
    }
  }

  private finished(entry: Entry, passed: boolean): void {
    entry.run = null;
    if (!passed) {
      const index = this.entries.indexOf(entry);
      this.entries.splice(index, 1);
      this.world.eject(entry.pr.number, 'merge group failed');
      for (const behind of this.entries.slice(index)) this.rebuild(behind);
    } else entry.state = 'passed';
    while (this.entries[0]?.state === 'passed') this.world.merge(this.entries.shift()!.pr.number);
    this.build();
  }

  private rebuild(entry: Entry): void {
    if (entry.run !== null) this.world.cancelRun(entry.run);
    entry.run = null;
    entry.state = 'waiting';
  }
}

interface Entry {
  pr: QueuedPullRequest;
  state: 'waiting' | 'building' | 'passed';
  run: RunHandle | null;
}
