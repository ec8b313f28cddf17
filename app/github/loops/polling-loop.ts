/**
 * Runs `run` until stopped, sleeping in between for what `computeSleepMs` says; `wake()` cuts
 * a sleep short (or skips the next one when called during a run), so new work is picked up at
 * once. The outbox worker and the scheduler are both such loops.
 */
export class PollingLoop {
  private loop: Promise<void> | null = null;
  private stopping = false;
  private woken = false;
  private sleeper: { timer: NodeJS.Timeout; resolve: () => void } | null = null;

  constructor(
    private readonly params: {
      run: () => Promise<unknown>;
      computeSleepMs: () => Promise<number>;
      onError: (error: unknown) => void;
    },
  ) {}

  start(): void {
    if (this.loop !== null) return;
    this.stopping = false;
    this.loop = this.poll();
  }

  /** Stops, and waits for the run in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = null;
    this.stopping = false;
  }

  /** Started and not asked to stop (readiness: the loop is taking work). */
  get isRunning(): boolean {
    return this.loop !== null && !this.stopping;
  }

  /** Between stop() and the end of the run in progress: a long run should end early. */
  get isStopping(): boolean {
    return this.stopping;
  }

  wake(): void {
    this.woken = true;
    this.sleeper?.resolve();
  }

  private async poll(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      try {
        await this.params.run();
      } catch (error) {
        this.params.onError(error);
      }
      if (this.stopping || this.woken) continue;
      const ms = await this.params.computeSleepMs().catch((error: unknown) => {
        this.params.onError(error);
        return 1_000;
      });
      // No await between this check and the sleep's start: a wake() cannot slip in between.
      if (!this.stopping && !this.woken) await this.sleep(ms);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        if (this.sleeper === null) return;
        clearTimeout(this.sleeper.timer);
        this.sleeper = null;
        resolve();
      };
      this.sleeper = { timer: setTimeout(done, ms), resolve: done };
    });
  }
}
