import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { messageErrorSchema } from '../../../shared/schemas/errors.schema.ts';
import { mergeIntegrityResultSchema } from '../../../shared/schemas/merge-queue.schema.ts';
import {
  dequeueImpactSchema,
  mergeQueuePullRequestSchema,
  pullRequestParamsSchema,
  requeueRequestSchema,
} from '../../../shared/schemas/merge-queue-pull.schema.ts';
import type { EntryRefusal } from '../../queue/effects.ts';
import { decideRequeue } from '../../queue/enter.ts';
import type { IdSource } from '../../queue/ids.ts';
import { projectPullRequestIntegrity } from '../../queue/integrity-projection.ts';
import { computeDequeueImpact, computePullRequestView } from '../../queue/pull-projection.ts';
import { runStep } from '../../store/step-transaction.ts';
import { errorResponses } from '../error-responses.ts';
import { HttpError, notFound, ValidationError } from '../errors.ts';
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

/** Why a pull request that is not queued cannot enter, as the API's error (docs/api.md, "Requeue"). */
function requeueRefusal(number: number, refusal: EntryRefusal): HttpError | ValidationError {
  switch (refusal.kind) {
    case 'pull_request_not_seen':
    case 'pull_request_not_open':
    case 'pull_request_unreadable':
      return notFound(
        `pull request #${number} is not an open pull request Trainyard knows in this repository (closed, merged, or never seen)`,
      );
    case 'unknown_rule':
      return new ValidationError([
        {
          loc: ['body', 'queue_name'],
          msg: `no queue rule "${refusal.queueName}"; the rules are: ${refusal.rules.join(', ')}`,
          type: 'unknown_queue_rule',
        },
      ]);
    case 'conditions_not_met':
      return new ValidationError([
        {
          loc: ['path', 'pr_number'],
          msg: `pull request #${number} does not meet the queue conditions: ${refusal.rules
            .map((r) => `${r.name}: ${r.unmet.join(', ')}`)
            .join('; ')}`,
          type: 'queue_conditions_not_met',
        },
      ]);
    case 'no_automatic_rule':
      return new ValidationError([
        { loc: ['path', 'pr_number'], msg: 'no queue rule accepts it', type: 'queue_conditions_not_met' },
      ]);
  }
}

/** `GET …/merge-queue/pull/{pr_number}`, its `dequeue-impact`, `POST …/dequeue` and `POST …/requeue` (docs/api.md). */
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

  app.post(
    '/merge-queue/pull/:pr_number/requeue',
    {
      schema: {
        summary: 'Queue the pull request again (as `@trainyard requeue [rule]` does); answers its place',
        params: pullRequestParamsSchema,
        body: requeueRequestSchema.nullish(),
        response: {
          200: mergeQueuePullRequestSchema,
          ...responses,
          404: messageErrorSchema.describe('Unknown repository, or not an open pull request known here'),
          409: messageErrorSchema.describe('Already in the merge queue, or a conflicting concurrent write'),
          422: errorResponses[422].describe(
            'Invalid number or body, an unknown queue rule, or queue conditions not met',
          ),
        },
      },
    },
    async (request) => {
      const number = request.params.pr_number;
      const queueName = request.body?.queue_name ?? null;
      const actor = await request.principal.actor();
      const now = ctx.now();
      // Decided under the repository's lock, on the state the engine then steps from: the
      // engine's decision is the same, so a refusal is answered here and never stepped.
      const outcome = await runStep({
        db: ctx.store.db,
        repositoryId: request.repository.id,
        inputs: [],
        now,
        ids,
        within: async (tx) => {
          const state = await readQueueState(ctx.store, request.repository.id, tx);
          const decision =
            state === null
              ? ({ kind: 'refused', refusal: { kind: 'pull_request_not_seen' } } as const)
              : decideRequeue({ state, now }, number, queueName);
          if (decision.kind === 'already_queued')
            throw new HttpError(
              409,
              `pull request #${number} is already in the merge queue (queue rule "${decision.queueName}")`,
            );
          if (decision.kind === 'refused') throw requeueRefusal(number, decision.refusal);
          return [{ type: 'requeue_requested', number, queueName, by: actor }];
        },
      });
      const view = outcome.state === null ? null : computePullRequestView(outcome.state, { number, now });
      if (view === null) throw new Error(`pull request #${number} did not enter the queue`);
      return view;
    },
  );
}
