import type { QueuedPullRequest, QueuePolicy, QueueWorld, RunHandle } from '../policy.ts';
import { insertInQueueOrder } from './queue-order.ts';

/**
 * Zuul style: a dependent pipeline with speculative execution. Source: Zuul documentation,
 * "Project Gating" and the pipeline attributes `window`, `window-floor`,
 * `window-increase-type/factor`, `window-decrease-type/factor` (zuul-ci.org/docs/zuul): every
 * change in the active window is tested on the base plus the non-failing changes ahead of it;
 * when a change fails, the changes behind it are restarted without it ("nearest non-failing
 * item"), and the failing change itself is restarted if a change ahead of it is removed (its
 * failure may have been theirs); a failing change is reported and dequeued when it reaches the
 * head. Window: starts at 20, +1 per merged change (linear, factor 1), halved per failed one
 * (exponential, factor 2), never below the floor of 3.
 */
export class ZuulPolicy implements QueuePolicy {
  readonly name = 'zuul';
  private world!: QueueWorld;
  private readonly items: Item[] = [];
  private window = 20;
  private readonly floor = 3;
  private readonly merged = new Set<number>();

  start(world: QueueWorld): void {
    this.world = world;
  }

  onQueued(pr: QueuedPullRequest): void {
    const started = this.items.filter((i) => i.run !== null || i.result !== null).length;
    insertInQueueOrder(this.items, { pr, run: null, builtOn: null, result: null }, (i) => i.pr, started);
    // Changes enqueued at the same instant are all in line before jobs start.
    this.world.wakeAt(this.world.now(), () => this.settle());
  }

  /** Dequeues the decided head items, then (re)starts what the window holds. */
  private settle(): void {
    for (;;) {
      const head = this.items[0];
      if (head === undefined || head.result === null) break;
      this.items.shift();
      if (head.result === 'passed') {
        this.world.merge(head.pr.number);
        this.merged.add(head.pr.number);
        this.window += 1;
      } else {
        this.world.eject(head.pr.number, 'failed at the head of the gate');
        this.window = Math.max(this.floor, Math.floor(this.window / 2));
      }
    }
    const active = Math.min(this.items.length, Math.floor(this.window));
    const ahead: number[] = [];
    for (let i = 0; i < this.items.length; i++) {
      const item = this.items[i]!;
      if (i >= active && item.run === null && item.result === null) {
        ahead.push(item.pr.number);
        continue;
      }
      this.keepOrRestart(item, ahead, i < active);
      if (item.result !== 'failed') ahead.push(item.pr.number);
    }
  }

  private keepOrRestart(item: Item, ahead: readonly number[], inWindow: boolean): void {
    // What merged since is in the base now: the build still holds exactly the same changes.
    const built = item.builtOn?.filter((n) => !this.merged.has(n)).join(',') ?? null;
    if (built === ahead.join(',')) return;
    // Built on something else (or never): restart it, if it is in the window.
    if (item.run !== null) this.world.cancelRun(item.run);
    item.run = null;
    item.result = null;
    item.builtOn = null;
    if (!inWindow) return;
    item.builtOn = [...ahead];
    item.run = this.world.startRun({
      numbers: [...ahead, item.pr.number],
      onDone: ({ passed }) => {
        item.run = null;
        item.result = passed ? 'passed' : 'failed';
        this.settle();
      },
    });
  }
}

interface Item {
  pr: QueuedPullRequest;
  run: RunHandle | null;
  /** The non-failing items ahead it is tested on, or null when not started. */
  builtOn: number[] | null;
  result: 'passed' | 'failed' | null;
}
