/*
 * bench:fuzz — the API fuzzer of test/api/fuzz.int.test.ts with a large budget: requests
 * generated from the served OpenAPI document with hostile values, and broken HTTP framing,
 * sent over raw loopback sockets with some concurrency to a seeded server in its own process
 * (PostgreSQL when DATABASE_URL is set, else PGlite).
 *
 *   npm run bench:fuzz
 *   FUZZ_BENCH_REQUESTS=20000 DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:fuzz
 *   FUZZ_BENCH_ONLY=3:141 npm run bench:fuzz      # replays request 141 of chunk 3, prints its answer
 *
 * Prints the requests sent, the count per status, the problems by kind with replayable
 * examples, max/p99 latency, the server's event-loop max delay (monitorEventLoopDelay in the
 * server process), its RSS peak and growth. Exits 1 when a target is missed: no 5xx, every 4xx
 * with a JSON detail and an X-Request-Id, the event loop never blocked over 100 ms by the server's
 * own work (its CPU time over the block, so that other processes' load is not counted), and every
 * other check of the test (an answer within the bound, no stack trace or SQL, valid requests
 * not refused). A server that stops answering is restarted (at most FUZZ_BENCH_MAX_RESTARTS).
 *
 * Environment: FUZZ_BENCH_REQUESTS (100,000), FUZZ_BENCH_CONCURRENCY (8), FUZZ_BENCH_SEED
 * (20261101), FUZZ_BENCH_CHUNK (requests generated at once, each chunk from seed + its index:
 * 1,000), FUZZ_BENCH_TIMEOUT_MS (5,000), FUZZ_BENCH_EVENTS (seeded history, 5,000),
 * FUZZ_BENCH_QUEUED (queued pull requests in the engine state, 200), FUZZ_BENCH_MAX_RESTARTS (5).
 */
import fc from 'fast-check';
import { describeBlocks } from '../support/event-loop-watch.ts';
import type { FuzzCase, FuzzContext } from '../support/fuzz-case.ts';
import { checkAnswer, describeCase } from '../support/fuzz-checks.ts';
import { answersNormally, buildFuzzContext } from '../support/fuzz-context.ts';
import { sendRequest } from '../support/fuzz-http.ts';
import { anyCaseArb } from '../support/fuzz-requests.ts';
import { FuzzServer, type ServerFigures } from '../support/fuzz-server.ts';
import { FuzzTally } from '../support/fuzz-tally.ts';
import { envInt } from './support/env-int.ts';

const config = {
  requests: envInt('FUZZ_BENCH_REQUESTS', 100_000),
  concurrency: Math.max(1, envInt('FUZZ_BENCH_CONCURRENCY', 8)),
  seed: envInt('FUZZ_BENCH_SEED', 20_261_101),
  chunk: Math.max(1, envInt('FUZZ_BENCH_CHUNK', 1_000)),
  timeoutMs: envInt('FUZZ_BENCH_TIMEOUT_MS', 5_000),
  events: envInt('FUZZ_BENCH_EVENTS', 5_000),
  queued: envInt('FUZZ_BENCH_QUEUED', 200),
  maxRestarts: envInt('FUZZ_BENCH_MAX_RESTARTS', 5),
  only: process.env['FUZZ_BENCH_ONLY'],
};
const target = { eventLoopMaxMs: 100 };
const backend = process.env['DATABASE_URL'] ? 'PostgreSQL' : 'PGlite';
const serverOptions = {
  events: config.events,
  queued: config.queued,
  nodeFlags: ['--max-semi-space-size=64'],
};

const chunkOf = (ctx: FuzzContext, k: number) =>
  fc.sample(anyCaseArb(ctx), {
    seed: config.seed + k,
    numRuns: Math.min(config.chunk, config.requests - k * config.chunk),
  });
const replayOf = (k: number, i: number) =>
  `FUZZ_BENCH_SEED=${config.seed} FUZZ_BENCH_CHUNK=${config.chunk} FUZZ_BENCH_ONLY=${k}:${i} npm run bench:fuzz`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** FUZZ_BENCH_ONLY=k:i — sends one generated request and prints it with its whole answer. */
async function replayOne(server: FuzzServer, ctx: FuzzContext, spec: string) {
  const [k, i] = spec.split(':').map(Number) as [number, number];
  const c = chunkOf(ctx, k)[i];
  if (!c) throw new Error(`no request ${i} in chunk ${k}`);
  console.log(describeCase(c));
  const answer = await sendRequest(server.url, c.wire, config.timeoutMs);
  if (answer.kind === 'answer') {
    console.log(
      `\n→ ${answer.status} in ${answer.ms.toFixed(1)} ms`,
      answer.headers,
      answer.body.toString('utf8').slice(0, 2_000),
    );
  } else console.log(`\n→ ${answer.kind} after ${answer.ms.toFixed(0)} ms`);
  console.log(checkAnswer(c, answer));
  return checkAnswer(c, answer).length === 0;
}

/** The figures of every server run (one per restart), combined. */
function combine(all: ServerFigures[]) {
  return {
    blocks: all
      .flatMap((f) => f.blocks)
      .sort((a, b) => b.lagMs - a.lagMs)
      .slice(0, 5),
    eventLoopMaxMs: Math.max(0, ...all.map((f) => f.eventLoopMaxMs)),
    ownBlockMaxMs: Math.max(0, ...all.map((f) => f.ownBlockMaxMs)),
    longestSilenceMs: Math.max(0, ...all.map((f) => f.longestSilenceMs)),
    rssPeak: Math.max(0, ...all.map((f) => f.rssPeak)),
    rssGrowth: Math.max(0, ...all.map((f) => f.rssPeak - f.rssBaseline)),
  };
}

async function main() {
  console.log(
    `bench:fuzz on ${backend}: ${config.requests.toLocaleString('en')} requests, concurrency ${config.concurrency}, seed ${config.seed}`,
  );
  let server = await FuzzServer.start(serverOptions);
  let ctx = await buildFuzzContext(server.url, server.fixtures);
  if (config.only) {
    const ok = await replayOne(server, ctx, config.only);
    await server.stop();
    process.exit(ok ? 0 : 1);
  }
  // Warm-up: each operation once with the generator's first chunk, not counted.
  for (const c of chunkOf(ctx, -1).slice(0, 100)) await sendRequest(server.url, c.wire, config.timeoutMs);
  server.resetFigures();

  const tally = new FuzzTally();
  const figures: ServerFigures[] = [];
  let restarts = 0;
  let restarting: Promise<void> | null = null;
  const started = performance.now();
  let lastProgress = started;

  /** A request went unanswered: if the server no longer answers an ordinary read, start another. */
  const recover = async (k: number, from: number, replace: (cases: FuzzCase[]) => void) => {
    if (restarting) return restarting;
    if (await answersNormally(server.url, server.fixtures, config.timeoutMs)) return;
    restarting = (async () => {
      figures.push(server.read());
      console.log(`! the server stopped answering (chunk ${k}, near request ${from}); restarting it`);
      await server.kill();
      if (++restarts > config.maxRestarts)
        throw new Error(`the server stopped answering ${restarts} times: giving up`);
      server = await FuzzServer.start(serverOptions);
      ctx = await buildFuzzContext(server.url, server.fixtures);
      // The same requests again (same seed) with the new server's credentials.
      replace(chunkOf(ctx, k));
      server.resetFigures();
    })();
    await restarting;
    restarting = null;
  };

  const chunks = Math.ceil(config.requests / config.chunk);
  for (let k = 0; k < chunks; k++) {
    let cases = chunkOf(ctx, k);
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const i = next++;
        const c = cases[i]!;
        const answer = await sendRequest(server.url, c.wire, config.timeoutMs);
        tally.record(c, answer, checkAnswer(c, answer), replayOf(k, i));
        if (answer.kind === 'timeout') await recover(k, i, (fresh) => (cases = fresh));
      }
    };
    await Promise.all(Array.from({ length: config.concurrency }, worker));
    if (performance.now() - lastProgress > 10_000) {
      lastProgress = performance.now();
      const rate = tally.total / ((lastProgress - started) / 1000);
      console.log(
        `  … ${tally.total.toLocaleString('en')} requests, ${rate.toFixed(0)}/s; ${tally.statusLine()}`,
      );
    }
  }
  const seconds = (performance.now() - started) / 1000;
  figures.push(server.read());
  await server.stop();

  const f = combine(figures);
  const count4xx = [...tally.statuses].filter(([s]) => /^4\d\d$/.test(s)).reduce((n, [, c]) => n + c, 0);
  const count5xx = [...tally.statuses].filter(([s]) => /^5\d\d$/.test(s)).reduce((n, [, c]) => n + c, 0);
  // Judged on what the server's own CPU time can account for: a block while the machine's other
  // processes held both cores is not a request's doing (test/support/event-loop-watch.ts).
  const blockedMs = Math.max(f.ownBlockMaxMs, restarts > 0 ? f.longestSilenceMs : 0);
  console.log(`\n## bench:fuzz on ${backend}`);
  console.log(
    `requests: ${tally.total.toLocaleString('en')} in ${seconds.toFixed(1)} s (${(tally.total / seconds).toFixed(0)}/s), concurrency ${config.concurrency}, seed ${config.seed}`,
  );
  console.log(`statuses: ${tally.statusLine()}`);
  console.log(
    `5xx: ${count5xx}; 4xx: ${count4xx}, without a JSON detail: ${tally.count('4xx without a JSON detail')}, without X-Request-Id: ${tally.count('4xx without X-Request-Id')}`,
  );
  console.log(
    `latency: p50 ${tally.latency(50).toFixed(1)} ms, p99 ${tally.latency(99).toFixed(1)} ms, max ${tally.latency(100).toFixed(1)} ms`,
  );
  console.log(
    `server event loop: max delay ${f.eventLoopMaxMs.toFixed(1)} ms, of which its own CPU at most ${f.ownBlockMaxMs.toFixed(1)} ms; longest heartbeat silence ${f.longestSilenceMs.toFixed(0)} ms; restarts ${restarts}`,
  );
  console.log(`server RSS: peak ${mb(f.rssPeak)}, max growth ${mb(f.rssGrowth)} over the run`);
  if (f.blocks.length > 0)
    console.log(
      `longest blocks in wall time (CPU well under the lag: the machine's other load):\n${describeBlocks(f.blocks)}`,
    );
  if (tally.problems.size > 0) console.log(`\n${tally.problemReport()}`);

  const missed = [
    count5xx > 0 && `${count5xx} answers were 5xx`,
    tally.count('4xx without a JSON detail') > 0 &&
      `${tally.count('4xx without a JSON detail')} 4xx lacked a JSON detail`,
    tally.count('4xx without X-Request-Id') > 0 &&
      `${tally.count('4xx without X-Request-Id')} 4xx lacked X-Request-Id`,
    blockedMs > target.eventLoopMaxMs &&
      `the server blocked its event loop for ${blockedMs.toFixed(0)} ms of its own CPU time (target ≤ ${target.eventLoopMaxMs} ms)`,
    ...[...tally.problems.keys()]
      .filter((k) => !['5xx', '4xx without a JSON detail', '4xx without X-Request-Id'].includes(k))
      .map((k) => `${tally.count(k)} × ${k}`),
  ].filter((m): m is string => typeof m === 'string');
  console.log(
    missed.length === 0
      ? '\nverdict: every target met'
      : `\nverdict: targets missed:\n- ${missed.join('\n- ')}`,
  );
  process.exit(missed.length === 0 ? 0 : 1);
}

await main();
