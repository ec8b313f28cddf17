/*
 * Fuzzing the v1 API over real HTTP: requests generated from the served OpenAPI document with
 * hostile values (test/support/fuzz-*.ts), sent on raw loopback sockets to a real server on a
 * seeded store, in a process of its own (so a request that stalls its event loop cannot stall
 * this test's clock). Every answer must keep the contract: no 5xx, every 4xx a JSON `detail`
 * and an X-Request-Id, no stack trace or SQL, an answer within the time bound.
 *
 * A small fixed budget (FUZZ_TEST_RUNS requests for the operations, 400); `npm run bench:fuzz`
 * runs the same generator for 100,000. A failure prints every problem found with its request
 * and how to replay it: FUZZ_SEED=<seed> FUZZ_PATH=<path> replays one generated request.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBlocks } from '../support/event-loop-watch.ts';
import type { FuzzCase, FuzzContext } from '../support/fuzz-case.ts';
import { checkAnswer, describeCase } from '../support/fuzz-checks.ts';
import { answersNormally, buildFuzzContext } from '../support/fuzz-context.ts';
import { tamperedCursorCaseArb } from '../support/fuzz-cursors.ts';
import { sendRequest } from '../support/fuzz-http.ts';
import { malformedCaseArb } from '../support/fuzz-malformed.ts';
import { extremePeriodCaseArb, fuzzCaseArb } from '../support/fuzz-requests.ts';
import { FuzzServer } from '../support/fuzz-server.ts';
import { FuzzTally } from '../support/fuzz-tally.ts';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_101);
const PATH = process.env['FUZZ_PATH'];
const RUNS = Number(process.env['FUZZ_TEST_RUNS'] ?? 400);
/** Every request is answered within this (the machine is shared: generous, yet far below a stall). */
const ANSWER_WITHIN_MS = 5_000;
/**
 * The server's event loop may not be blocked longer than this. Not bench:fuzz's 100 ms target:
 * on PGlite every query runs on that loop, and the test machine is shared; a stall is seconds.
 */
const MAX_LOOP_DELAY_MS = Number(process.env['FUZZ_MAX_LOOP_DELAY_MS'] ?? 2_000);

let server: FuzzServer;
let ctx: FuzzContext;

beforeAll(async () => {
  server = await FuzzServer.start({ events: 400, queued: 30 });
  ctx = await buildFuzzContext(server.url, server.fixtures);
  server.resetFigures();
}, 120_000);

afterAll(async () => {
  // A stalled server cannot read the stop message: it is killed after a short wait.
  await server?.stop(3_000);
});

/**
 * Sends `numRuns` generated requests, one at a time; returns what they met. A request left
 * unanswered while the server no longer answers an ordinary read ends the run (fast-check
 * reports its seed and path): nothing after it would say anything.
 */
async function fuzz(name: string, arbitrary: fc.Arbitrary<FuzzCase>, numRuns: number): Promise<FuzzTally> {
  const tally = new FuzzTally();
  let index = PATH === undefined ? 0 : Number(PATH.split(':')[0]);
  const property = fc.asyncProperty(arbitrary, async (c) => {
    const answer = await sendRequest(server.url, c.wire, ANSWER_WITHIN_MS);
    const replay = `FUZZ_SEED=${SEED} FUZZ_PATH=${index++} npx vitest run test/api/fuzz.int.test.ts -t "${name}"`;
    tally.record(c, answer, checkAnswer(c, answer), replay);
    if (
      answer.kind === 'timeout' &&
      !(await answersNormally(server.url, server.fixtures, ANSWER_WITHIN_MS))
    ) {
      throw new Error(`the server stopped answering after:\n${describeCase(c)}`);
    }
  });
  const run = fc.assert(property, {
    seed: SEED,
    // A path replays its one request.
    numRuns: PATH === undefined ? numRuns : 1,
    // No shrinking: the server may be wrecked by then; the report names each problem's request.
    endOnFailure: true,
    ...(PATH === undefined ? {} : { path: PATH }),
  });
  await run.catch((error: Error) => {
    throw new Error(`${error.message}\n\nproblems met before:\n${tally.problemReport()}`);
  });
  return tally;
}

function expectNoProblem(tally: FuzzTally) {
  const summary = `${tally.total} requests (seed ${SEED}): ${tally.statusLine()}`;
  expect(tally.problems.size, `${summary}\n${tally.problemReport()}`).toBe(0);
}

describe('v1 API fuzzing over HTTP', () => {
  it('answers broken HTTP framing with a JSON detail and a request id', async () => {
    expectNoProblem(await fuzz('broken HTTP framing', malformedCaseArb(ctx.fixtures), 60));
  });

  it('answers tampered log cursors with a 422 (or a page), never a fault', async () => {
    expectNoProblem(await fuzz('tampered log cursors', tamperedCursorCaseArb(ctx), 80));
  });

  it('answers hostile requests to every operation of the OpenAPI document within the contract', async () => {
    const tally = await fuzz('every operation of the OpenAPI document', fuzzCaseArb(ctx), RUNS);
    // The budget reached every operation and got past validation often enough to mean something.
    expect(new Set(ctx.operations.map((o) => o.id)).size).toBeGreaterThanOrEqual(20);
    expect(tally.statuses.get('200') ?? 0).toBeGreaterThan(RUNS / 10);
    expectNoProblem(tally);
  });

  it('answers every dated read over extreme periods within the time bound', async () => {
    expectNoProblem(await fuzz('extreme periods', extremePeriodCaseArb(ctx), 120));
  });

  it("kept the server's event loop free during the run", () => {
    const figures = server.read();
    const delays = `event loop max delay ${figures.eventLoopMaxMs.toFixed(0)} ms, longest heartbeat silence ${figures.longestSilenceMs.toFixed(0)} ms\n${describeBlocks(figures.blocks)}`;
    console.log(
      `fuzz: server ${delays.split('\n')[0]}; RSS peak ${(figures.rssPeak / 2 ** 20).toFixed(0)} MB`,
    );
    expect(figures.eventLoopMaxMs, delays).toBeLessThan(MAX_LOOP_DELAY_MS);
    expect(figures.longestSilenceMs, delays).toBeLessThan(MAX_LOOP_DELAY_MS);
  });

  it('still answers a normal request after the run', async () => {
    expect(await answersNormally(server.url, server.fixtures, ANSWER_WITHIN_MS)).toBe(true);
  });
});
