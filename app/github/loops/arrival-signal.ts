/**
 * Tells a run that keeps its slots full that something arrived (a delivery stored, a row
 * enqueued, a group finished): `count` says whether anything did since it last looked, and
 * `next()` is what it waits on beside its running tasks when it has room for more.
 */
export class ArrivalSignal {
  private arrivals = 0;
  private waiter: { promise: Promise<void>; resolve: () => void } | null = null;

  /** How many arrivals so far: compare two readings to see whether anything arrived between. */
  get count(): number {
    return this.arrivals;
  }

  notify(): void {
    this.arrivals++;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.resolve();
  }

  /** Resolves at the next notify(). */
  next(): Promise<void> {
    if (this.waiter === null) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.waiter = { promise, resolve };
    }
    return this.waiter.promise;
  }
}
