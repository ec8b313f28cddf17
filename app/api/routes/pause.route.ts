import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { repoParamsSchema } from '../../../shared/schemas/common.schema.ts';
import type { Actor } from '../../../shared/schemas/event-parts.schema.ts';
import { pauseRecordSchema, pauseRequestSchema } from '../../../shared/schemas/merge-queue.schema.ts';
import type { IdSource } from '../../queue/ids.ts';
import { appendEvents } from '../../store/events.ts';
import { deletePause, loadPause, type PauseRecord, savePause } from '../../store/pauses.ts';
import { runStep } from '../../store/step-transaction.ts';
import { errorResponses } from '../error-responses.ts';
import { notFound } from '../errors.ts';
import type { RouteContext } from '../route-context.ts';
import type { ZodApp } from '../zod-app.ts';

/** The pause record as answers show it; `paused` is Mergify's field, always true here. */
export const toPauseBody = (p: PauseRecord) => ({
  paused: true as const,
  reason: p.reason,
  paused_at: p.pausedAt.toISOString(),
});

/** `trigger` of pause events: who did it, in words (docs/api.md, "Authentication and authorization"). */
function describeActor(verb: string, actor: Actor): string {
  return actor.type === 'application'
    ? `API: ${verb} by key "${actor.name}"`
    : `API: ${verb} by @${actor.name}`;
}

const notPaused = () => notFound('the merge queue of this repository is not paused');

// The shell's ids: the engine draws from them when the pause cancels batches (it makes none itself).
const ids: IdSource = { uuid: randomUUID };

export function registerPauseRoutes(app: ZodApp, ctx: RouteContext) {
  app.put(
    '/merge-queue/pause',
    {
      schema: {
        summary: 'Pause the merge queue, or change the reason of the current pause',
        params: repoParamsSchema,
        body: pauseRequestSchema,
        response: { 200: pauseRecordSchema, ...errorResponses },
      },
    },
    async (request) => {
      const actor = await request.principal.actor();
      const now = ctx.now();
      const { reason } = request.body;
      // The pause row, its event and the engine's step (which cancels running draft-PR batches)
      // commit together.
      let record: PauseRecord | undefined;
      await runStep({
        db: ctx.store.db,
        repositoryId: request.repository.id,
        inputs: [{ type: 'pause_set', reason, by: actor }],
        now,
        ids,
        within: async (tx) => {
          const before = await loadPause(tx, request.repository.id);
          record = await savePause(tx, request.repository.id, { reason, by: actor, now });
          await appendEvents(tx, request.repository.id, [
            before
              ? {
                  type: 'queue.pause.update',
                  receivedAt: now,
                  trigger: describeActor('pause update', actor),
                  pullRequest: null,
                  baseRef: null,
                  metadata: { reason, updated_by: actor },
                }
              : {
                  type: 'queue.pause.create',
                  receivedAt: now,
                  trigger: describeActor('pause', actor),
                  pullRequest: null,
                  baseRef: null,
                  metadata: { reason, created_by: actor },
                },
          ]);
          return undefined;
        },
      });
      return toPauseBody(record!);
    },
  );

  app.delete(
    '/merge-queue/pause',
    {
      schema: {
        summary: 'Unpause the merge queue',
        params: repoParamsSchema,
        response: { 204: z.null().describe('Unpaused'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = await request.principal.actor();
      const now = ctx.now();
      await runStep({
        db: ctx.store.db,
        repositoryId: request.repository.id,
        inputs: [{ type: 'pause_cleared', by: actor }],
        now,
        ids,
        within: async (tx) => {
          if (!(await deletePause(tx, request.repository.id))) throw notPaused();
          await appendEvents(tx, request.repository.id, [
            {
              type: 'queue.pause.delete',
              receivedAt: now,
              trigger: describeActor('unpause', actor),
              pullRequest: null,
              baseRef: null,
              metadata: { deleted_by: actor },
            },
          ]);
          return undefined;
        },
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/merge-queue/pause',
    {
      schema: {
        summary: 'Read the pause record',
        params: repoParamsSchema,
        response: { 200: pauseRecordSchema, ...errorResponses },
      },
    },
    async (request) => {
      const pause = await loadPause(ctx.store.db, request.repository.id);
      if (!pause) throw notPaused();
      return toPauseBody(pause);
    },
  );
}
