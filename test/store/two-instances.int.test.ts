import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../app/config/config.schema.ts';
import type { Effect } from '../../app/queue/effects.ts';
import { createSeededIdSource } from '../../app/queue/ids.ts';
import type { QueueInput } from '../../app/queue/inputs.ts';
import { initialState } from '../../app/queue/state.schema.ts';
import type { QueueState } from '../../app/queue/state.ts';
import { step } from '../../app/queue/step.ts';
import { createRandom } from '../../app/sim/random.ts';
import type { Store } from '../../app/store/database.ts';
import { appendEvents } from '../../app/store/events.ts';
import { loadQueueState } from '../../app/store/queue-state.ts';
import { ensureRepository } from '../../app/store/repositories.ts';
import { runStep } from '../../app/store/step-transaction.ts';
import type { NewEvent } from '../../shared/schemas/event.schema.ts';
import { checkBatchOrder, checkNoMergeWhileHeld, checkSessions } from '../queue/support/invariants.ts';
import type { StepRecord } from '../queue/support/scenario.ts';
import { openedAndQueued, pauseSet } from '../support/queue-inputs.ts';
import { backend, createReopenableStore } from '../support/test-store.ts';

const now = new Date('2026-11-02T09:00:00.000Z');
const REPOSITORIES = 3;
const PULL_REQUESTS = 12;

interface PlannedStep {
  index: number;
  repositoryId: string;
  inputs: QueueInput[];
}

const dequeue = (number: number): QueueInput =>
  ({
    type: 'command_received',
    number,
    command: 'dequeue',
    queueName: null,
    author: { id: 1001, login: 'alice', type: 'User' },
    commentId: 20_000 + number,
    authorized: true,
  }) as QueueInput;

/** Queue 1..12, dequeue two of them, pause and unpause, close one: in any commit order. */
function planSteps(repositoryId: string, first: number): PlannedStep[] {
  const inputs: QueueInput[][] = [];
  for (let n = 1; n <= PULL_REQUESTS; n++) inputs.push(openedAndQueued(n));
  inputs.push([dequeue(3)], [dequeue(7)], [pauseSet('deploy')]);
  inputs.push([{ type: 'pause_cleared', by: { type: 'user', id: 7, name: 'ops' } }]);
  inputs.push([{ type: 'pull_request_closed', number: 5, merged: false, mergeSha: null }]);
  return inputs.map((list, i) => ({ index: first + i, repositoryId, inputs: list }));
}

/** The marker each step writes first, in its transaction: its position is the step's commit order. */
const marker = (index: number) => ({
  type: 'action.refresh',
  receivedAt: now,
  trigger: `step ${index}`,
  pullRequest: null,
  baseRef: null,
  metadata: {},
});

describe('two app instances on one PostgreSQL', () => {
  it.skipIf(backend === 'pglite')(
    'apply interleaved steps of the same repositories one at a time: contiguous events, states as a serial replay gives (PostgreSQL only: PGlite has one process)',
    async () => {
      const shared = await createReopenableStore();
      const instances: Store[] = [await shared.open(), await shared.open()];
      try {
        const repos: string[] = [];
        for (let r = 0; r < REPOSITORIES; r++) {
          repos.push((await ensureRepository(instances[0]!.db, { owner: 'acme', name: `twin-${r}` })).id);
        }
        const steps = repos.flatMap((repo, r) => planSteps(repo, r * 100));
        // A fixed shuffle of the launch order; the commit order is whatever the two instances make of it.
        const random = createRandom(2026);
        for (let i = steps.length - 1; i > 0; i--) {
          const j = random.int(i + 1);
          [steps[i], steps[j]] = [steps[j]!, steps[i]!];
        }
        const returned = new Map<number, string[]>();
        await Promise.all(
          steps.map(async (planned, launch) => {
            const outcome = await runStep({
              db: instances[launch % 2]!.db,
              repositoryId: planned.repositoryId,
              inputs: planned.inputs,
              now,
              ids: createSeededIdSource(planned.index),
              within: async (tx) => {
                await appendEvents(tx, planned.repositoryId, [marker(planned.index)]);
                return undefined;
              },
            });
            returned.set(planned.index, outcome.eventIds);
          }),
        );

        const byIndex = new Map(steps.map((s) => [s.index, s]));
        for (const repo of repos) {
          const log = await instances[1]!.db
            .selectFrom('events')
            .select(['id', 'type', 'trigger', 'pull_request', 'base_ref', 'metadata'])
            .where('repository_id', '=', repo)
            .orderBy('id')
            .execute();
          // Split the log at the markers: each block must be exactly one step's events.
          const blocks: { index: number; events: typeof log }[] = [];
          for (const row of log) {
            if (row.type === 'action.refresh')
              blocks.push({ index: Number(row.trigger.slice(5)), events: [] });
            else blocks.at(-1)!.events.push(row);
          }
          expect(blocks).toHaveLength(PULL_REQUESTS + 5);
          for (const block of blocks)
            expect(block.events.map((e) => e.id)).toEqual(returned.get(block.index));

          // Replaying the steps serially, in commit order, gives the same events and the stored state.
          let state: QueueState = initialState(defaultConfig);
          const records: StepRecord[] = [];
          for (const block of blocks) {
            const planned = byIndex.get(block.index)!;
            const ids = createSeededIdSource(planned.index);
            const events: NewEvent[] = [];
            const effects: Effect[] = [];
            for (const input of planned.inputs) {
              const result = step(state, input, { now, ids });
              state = result.state;
              events.push(...result.events);
              effects.push(...result.effects);
            }
            expect(block.events.map((e) => [e.type, e.pull_request, e.base_ref, e.metadata])).toEqual(
              events.map((e) => [e.type, e.pull_request, e.base_ref, e.metadata]),
            );
            records.push({ at: now.getTime(), input: planned.inputs.at(-1)!, effects, events, state });
          }
          expect(await loadQueueState(instances[0]!.db, repo)).toEqual(JSON.parse(JSON.stringify(state)));
          expect([
            ...checkSessions(records),
            ...checkBatchOrder(records),
            ...checkNoMergeWhileHeld(records),
          ]).toEqual([]);
          // The run meant something: pull requests entered, and some left.
          const types = records.flatMap((r) => r.events.map((e) => e.type));
          expect(types.filter((t) => t === 'action.queue.enter').length).toBeGreaterThanOrEqual(
            PULL_REQUESTS - 2,
          );
          expect(types).toContain('action.queue.leave');
        }
      } finally {
        for (const instance of instances) await instance.close();
        await shared.dispose();
      }
    },
  );
});
