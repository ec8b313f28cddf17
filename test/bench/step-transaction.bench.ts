/*
 * Benchmark of one step transaction (app/store/step-transaction.ts) on a large state: 1,000
 * queued pull requests over 10 partitions (test/support/large-state.ts, about 1.1 MB of JSON).
 * Medians of BENCH_RUNS, in ms: loading the state row, parsing it with the state schema, saving
 * it, and whole runSteps (lock, load, parse, step, save, events, outbox) — with the state this
 * process committed last (the usual case) and without it (after another instance wrote). PGlite,
 * or PostgreSQL when DATABASE_URL is set.
 *
 *   npx tsx test/bench/step-transaction.bench.ts
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test npx tsx test/bench/step-transaction.bench.ts
 */
import { performance } from 'node:perf_hooks';
import { createSeededIdSource } from '../../app/queue/ids.ts';
import { queueStateSchema } from '../../app/queue/state.schema.ts';
import { loadQueueState, saveQueueState } from '../../app/store/queue-state.ts';
import { queueStateCacheOf } from '../../app/store/queue-state-cache.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { runStep } from '../../app/store/step-transaction.ts';
import { pullRequest } from '../queue/support/scenario.ts';
import { buildLargeState, LARGE_STATE_TIME } from '../support/large-state.ts';
import { openTestStore } from '../support/test-store.ts';

const QUEUED = Number(process.env.BENCH_QUEUED ?? 1_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function time(runs: number, work: (i: number) => Promise<unknown>): Promise<string> {
  const took: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work(i);
    took.push(performance.now() - started);
  }
  return median(took).toFixed(1);
}

async function main() {
  const store = await openTestStore();
  try {
    const repo = await ensureRepository(store.db, { owner: 'acme', name: 'monorepo' });
    const state = buildLargeState(QUEUED);
    const now = LARGE_STATE_TIME;
    await saveQueueState(store.db, repo.id, state, now);
    const stored = await loadQueueState(store.db, repo.id);
    const ids = createSeededIdSource(1);
    const cache = queueStateCacheOf(store.db);
    // An input that changes the state (a new title of an unqueued pull request): it is saved.
    const change = (i: number) => ({
      type: 'pull_request_updated' as const,
      pullRequest: pullRequest(100_000, { title: `Title ${i}` }),
    });
    const report = {
      backend: store.backend,
      queued: QUEUED,
      stateBytes: JSON.stringify(state).length,
      load: await time(RUNS, () => loadQueueState(store.db, repo.id)),
      parse: await time(RUNS, async () => queueStateSchema.parse(stored)),
      save: await time(RUNS, () => saveQueueState(store.db, repo.id, state, now)),
      stepColdNoChange: await time(RUNS, () => {
        cache.forget(repo.id);
        return runStep({ db: store.db, repositoryId: repo.id, inputs: [{ type: 'tick' }], now, ids });
      }),
      stepWarmNoChange: await time(RUNS, () =>
        runStep({ db: store.db, repositoryId: repo.id, inputs: [{ type: 'tick' }], now, ids }),
      ),
      stepColdChange: await time(RUNS, (i) => {
        cache.forget(repo.id);
        return runStep({ db: store.db, repositoryId: repo.id, inputs: [change(i)], now, ids });
      }),
      stepWarmChange: await time(RUNS, (i) =>
        runStep({ db: store.db, repositoryId: repo.id, inputs: [change(RUNS + i)], now, ids }),
      ),
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await store.close();
  }
}

await main();
