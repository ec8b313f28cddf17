import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { messageErrorSchema } from '../../../shared/schemas/errors.schema.ts';
import { mergeIntegrityResultSchema } from '../../../shared/schemas/merge-queue.schema.ts';
import {
  dequeueImpactSchema,
  mergeQueuePullRequestSchema,
  pullRequestParamsSchema,
} from '../../../shared/schemas/merge-queue-pull.schema.ts';
import type { IdSource } from '../../queue/ids.ts';
import { projectPullRequestIntegrity } from '../../queue/integrity-projection.ts';
import { computeDequeueImpact, computePullRequestView } from '../../queue/pull-projection.ts';
import { runStep } from '../../store/step-transaction.ts';
import { errorResponses } from '../error-responses.ts';
import { notFound } from '../errors.ts';
import { readQueueState } from '../queue-state-read.ts';
import type { RouteContext } from '../route-context.ts';
import type { ZodApp } from '../zod-app.ts';

/** The answers of the per-pull-request routes: a 404 also for a pull request in no queue. */
const responses = {
  ...errorResponses,
  404: messageErrorSchema.describe('Unknown repository, or the pull request is not in any merge queue'),
} as const;

const notQueued = (number: number) =>
  notFound(`pull request #${number} is not in any merge queue of this repository`);

// The shell's ids: the engine draws from them when a dequeue rebuilds batches.
const ids: IdSource = { uuid: randomUUID };

/** `GET …/merge-queue/pull/{pr_number}`, its `dequeue-impact` and `POST …/dequeue` (docs/api.md). */
export function registerPullRoutes(app: ZodApp, ctx: RouteContext) {
  app.get(
    '/merge-queue/pull/:pr_number',
    {
      schema: {
        summary: 'One queued pull request: its place, estimated merge time, queue rule and test',
        params: pullRequestParamsSchema,
        response: { 200: mergeQueuePullRequestSchema, ...responses },
      },
    },
    async (request) => {
      const number = request.params.pr_number;
      const state = await readQueueState(ctx.store, request.repository.id);
      const view = state === null ? null : computePullRequestView(state, { number, now: ctx.now() });
      if (view === null) throw notQueued(number);
      return view;
    },
  );

  app.get(
    '/merge-queue/pull/:pr_number/merge-integrity',
    {
      schema: {
        summary:
          'Merge integrity of a merged pull request: its batch’s landed tree compared with the tested tree (the most recent verifications are kept)',
        params: pullRequestParamsSchema,
        response: {
          200: mergeIntegrityResultSchema,
          ...errorResponses,
          404: messageErrorSchema.describe(
            'Unknown repository, or no recent verification covered the pull request',
          ),
        },
      },
    },
    async (request) => {
      const number = request.params.pr_number;
      const state = await readQueueState(ctx.store, request.repository.id);
      const result = projectPullRequestIntegrity(state?.mergeIntegrity, number);
      if (result === null)
        throw notFound(`no recent merge verification of this repository covers pull request #${number}`);
      return result;
    },
  );

  app.get(
    '/merge-queue/pull/:pr_number/dequeue-impact',
    {
      schema: {
        summary: 'What dequeuing the pull request would do: batches stopped, pull requests tested again',
        params: pullRequestParamsSchema,
        response: { 200: dequeueImpactSchema, ...responses },
      },
    },
    async (request) => {
      const number = request.params.pr_number;
      const state = await readQueueState(ctx.store, request.repository.id);
      const impact = state === null ? null : computeDequeueImpact(state, number);
      if (impact === null) throw notQueued(number);
      return impact;
    },
  );

  app.post(
    '/merge-queue/pull/:pr_number/dequeue',
    {
      schema: {
        summary: 'Take the pull request out of the merge queue (as `@trainyard dequeue` does)',
        params: pullRequestParamsSchema,
        response: { 204: z.null().describe('Dequeued'), ...responses },
      },
    },
    async (request, reply) => {
      const number = request.params.pr_number;
      const actor = await request.principal.actor();
      // Decided under the repository's lock, on the state the engine then steps from.
      await runStep({
        db: ctx.store.db,
        repositoryId: request.repository.id,
        inputs: [],
        now: ctx.now(),
        ids,
        within: async (tx) => {
          const state = await readQueueState(ctx.store, request.repository.id, tx);
          if (state?.sessions[String(number)] === undefined) throw notQueued(number);
          return [{ type: 'dequeue_requested', number, by: actor }];
        },
      });
      return reply.code(204).send(null);
    },
  );
}
