import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { freezeTimeToInstant, instantToFreezeTime } from '../../../shared/freeze-times.ts';
import { repoParamsSchema } from '../../../shared/schemas/common.schema.ts';
import { messageErrorSchema } from '../../../shared/schemas/errors.schema.ts';
import {
  createScheduledFreezeSchema,
  deleteScheduledFreezeSchema,
  freezeParamsSchema,
  type ScheduledFreeze,
  scheduledFreezeListSchema,
  scheduledFreezeSchema,
  updateScheduledFreezeSchema,
} from '../../../shared/schemas/scheduled-freeze.schema.ts';
import { parseConditionList } from '../../config/conditions/parse-conditions.ts';
import { canonicalTimeZone } from '../../config/conditions/schedule.ts';
import type { IdSource } from '../../queue/ids.ts';
import type { Actor, Freeze, QueueInput } from '../../queue/inputs.ts';
import type { QueueState } from '../../queue/state.ts';
import { runStep } from '../../store/step-transaction.ts';
import { errorResponses } from '../error-responses.ts';
import { HttpError, notFound, ValidationError } from '../errors.ts';
import { readQueueState } from '../queue-state-read.ts';
import type { RouteContext } from '../route-context.ts';
import type { ZodApp } from '../zod-app.ts';

/*
 * Scheduled freezes (docs/api.md, "Scheduled freezes"). They are engine state: a write is a
 * `freeze_saved` or `freeze_deleted` input, stepped with the events it emits; a change or a
 * deletion is decided under the repository's lock, on the state the engine then steps from.
 */

const freezeResponses = {
  ...errorResponses,
  404: messageErrorSchema.describe('Unknown repository, or no current or future freeze has this id'),
} as const;

// The shell's ids: the engine draws from them when a freeze rebuilds batches.
const ids: IdSource = { uuid: randomUUID };

const LATEST_INSTANT_MS = Date.parse('9999-01-01T00:00:00Z');

/** A freeze whose end has passed is over: the API no longer shows it, and the engine forgets it. */
const isCurrent = (freeze: Freeze, now: Date) =>
  freeze.end === null || Date.parse(freeze.end) > now.getTime();

function toBody(freeze: Freeze): ScheduledFreeze {
  return {
    id: freeze.id,
    reason: freeze.reason,
    start: instantToFreezeTime(Date.parse(freeze.start), freeze.timezone),
    end: freeze.end === null ? null : instantToFreezeTime(Date.parse(freeze.end), freeze.timezone),
    timezone: freeze.timezone,
    matching_conditions: freeze.matchingConditions,
    exclude_conditions: freeze.excludeConditions,
  };
}

const invalid = (field: string, msg: string, type = 'value_error') =>
  new ValidationError([{ loc: ['body', field], msg, type }]);

function checkTimezone(timezone: string): void {
  if (canonicalTimeZone(timezone) === undefined) {
    throw invalid('timezone', `unknown time zone "${timezone}" (an IANA name such as Europe/Paris or UTC)`);
  }
}

/** The instant a time of the body names, in the freeze's time zone. */
function instantOf(text: string, timezone: string, field: string): number {
  const instant = freezeTimeToInstant(text, timezone);
  if (!Number.isFinite(instant) || instant < 0 || instant >= LATEST_INSTANT_MS) {
    throw invalid(field, `"${text}" is not a date-time from 1970 to 9998`);
  }
  return instant;
}

/** Conditions must parse: a freeze that cannot read its conditions would hold every pull request. */
function checkConditions(conditions: readonly string[], field: string): void {
  const parsed = parseConditionList(conditions);
  if (parsed.ok) return;
  throw new ValidationError(
    parsed.errors.map((e) => ({ loc: ['body', field, ...e.path], msg: e.message, type: 'condition' })),
  );
}

function checkEnd(params: { start: number; end: number | null; now: Date; changed: boolean }): void {
  const { start, end, now, changed } = params;
  if (end === null) return;
  if (end <= start) throw invalid('end', 'the end must come after the start');
  if (changed && end <= now.getTime()) throw invalid('end', 'the end must be in the future');
}

function findCurrent(state: QueueState | null, id: string, now: Date): Freeze {
  const freeze = state?.freezes.find((f) => f.freeze.id === id)?.freeze;
  if (freeze === undefined || !isCurrent(freeze, now)) {
    throw notFound(`the scheduled freeze ${id} does not exist (or has ended)`);
  }
  return freeze;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function registerFreezeRoutes(app: ZodApp, ctx: RouteContext) {
  app.get(
    '/scheduled_freeze',
    {
      schema: {
        summary: 'The scheduled freezes that are current or to come, by start',
        params: repoParamsSchema,
        response: { 200: scheduledFreezeListSchema, ...errorResponses },
      },
    },
    async (request) => {
      const state = await readQueueState(ctx.store, request.repository.id);
      const now = ctx.now();
      const freezes = (state?.freezes ?? [])
        .map((f) => f.freeze)
        .filter((f) => isCurrent(f, now))
        .sort((a, b) => Date.parse(a.start) - Date.parse(b.start) || (a.id < b.id ? -1 : 1));
      return { scheduled_freezes: freezes.map(toBody) };
    },
  );

  app.post(
    '/scheduled_freeze',
    {
      schema: {
        summary: 'Schedule a freeze: the pull requests it holds keep testing but do not merge until it ends',
        params: repoParamsSchema,
        body: createScheduledFreezeSchema,
        response: { 201: scheduledFreezeSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const now = ctx.now();
      checkTimezone(body.timezone);
      const start = body.start == null ? now.getTime() : instantOf(body.start, body.timezone, 'start');
      const end = body.end == null ? null : instantOf(body.end, body.timezone, 'end');
      checkEnd({ start, end, now, changed: true });
      const matchingConditions = body.matching_conditions ?? [];
      const excludeConditions = body.exclude_conditions ?? [];
      checkConditions(matchingConditions, 'matching_conditions');
      checkConditions(excludeConditions, 'exclude_conditions');
      const freeze: Freeze = {
        id: randomUUID(),
        reason: body.reason,
        start: iso(start),
        end: end === null ? null : iso(end),
        timezone: body.timezone,
        matchingConditions,
        excludeConditions,
      };
      const actor = await request.principal.actor();
      await runStep({
        db: ctx.store.db,
        repositoryId: request.repository.id,
        inputs: [{ type: 'freeze_saved', freeze, by: actor }],
        now,
        ids,
      });
      return reply.code(201).send(toBody(freeze));
    },
  );

  app.patch(
    '/scheduled_freeze/:freeze_id',
    {
      schema: {
        summary: 'Change a scheduled freeze: the fields given replace the current ones',
        params: freezeParamsSchema,
        body: updateScheduledFreezeSchema,
        response: {
          200: scheduledFreezeSchema,
          400: messageErrorSchema.describe('The start of a freeze that has started cannot change'),
          ...freezeResponses,
        },
      },
    },
    async (request) => {
      const body = request.body;
      const id = request.params.freeze_id;
      const now = ctx.now();
      const actor = await request.principal.actor();
      let saved: Freeze | undefined;
      await runStep({
        db: ctx.store.db,
        repositoryId: request.repository.id,
        inputs: [],
        now,
        ids,
        within: async (tx) => {
          const state = await readQueueState(ctx.store, request.repository.id, tx);
          const current = findCurrent(state, id, now);
          saved = changeFreeze(current, { body, now });
          return [{ type: 'freeze_saved', freeze: saved, by: actor }] satisfies QueueInput[];
        },
      });
      return toBody(saved!);
    },
  );

  const deleteFreeze = async (
    request: {
      params: { freeze_id: string };
      repository: { id: string };
      principal: { actor(): Promise<Actor> };
    },
    reason: string,
  ) => {
    const id = request.params.freeze_id;
    const now = ctx.now();
    const actor = await request.principal.actor();
    await runStep({
      db: ctx.store.db,
      repositoryId: request.repository.id,
      inputs: [],
      now,
      ids,
      within: async (tx) => {
        const state = await readQueueState(ctx.store, request.repository.id, tx);
        findCurrent(state, id, now);
        return [{ type: 'freeze_deleted', id, reason, by: actor }] satisfies QueueInput[];
      },
    });
  };

  app.post(
    '/scheduled_freeze/:freeze_id/delete',
    {
      schema: {
        summary: 'Delete a scheduled freeze, with an optional reason; merges it held resume at once',
        params: freezeParamsSchema,
        body: deleteScheduledFreezeSchema.nullish(),
        response: { 204: z.null().describe('Deleted'), ...freezeResponses },
      },
    },
    async (request, reply) => {
      await deleteFreeze(request, request.body?.delete_reason ?? '');
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/scheduled_freeze/:freeze_id',
    {
      schema: {
        summary: 'Delete a scheduled freeze (as POST …/delete without a reason)',
        params: freezeParamsSchema,
        response: { 204: z.null().describe('Deleted'), ...freezeResponses },
      },
    },
    async (request, reply) => {
      await deleteFreeze(request, '');
      return reply.code(204).send(null);
    },
  );
}

/**
 * A freeze with a PATCH body's changes. A new time zone keeps the start and end at their
 * wall-clock times there (they are given in the freeze's zone), so it may move them; the start
 * of a freeze that has started cannot move (400).
 */
function changeFreeze(
  current: Freeze,
  params: { body: z.output<typeof updateScheduledFreezeSchema>; now: Date },
): Freeze {
  const { body, now } = params;
  const timezone = body.timezone ?? current.timezone;
  checkTimezone(timezone);
  const movedZone = timezone !== current.timezone;
  const before = Date.parse(current.start);
  const reread = (ms: number, field: string) =>
    instantOf(instantToFreezeTime(ms, current.timezone), timezone, field);
  const start =
    body.start !== undefined
      ? instantOf(body.start, timezone, 'start')
      : movedZone
        ? reread(before, 'start')
        : before;
  if (start !== before && before <= now.getTime()) {
    throw new HttpError(
      400,
      body.start === undefined
        ? 'the scheduled freeze has already started: its start cannot change, and a new time zone would move it'
        : 'the scheduled freeze has already started: its start cannot change',
    );
  }
  const previousEnd = current.end === null ? null : Date.parse(current.end);
  const end =
    body.end !== undefined
      ? body.end === null
        ? null
        : instantOf(body.end, timezone, 'end')
      : previousEnd !== null && movedZone
        ? reread(previousEnd, 'end')
        : previousEnd;
  checkEnd({ start, end, now, changed: end !== previousEnd });
  if (body.matching_conditions !== undefined)
    checkConditions(body.matching_conditions, 'matching_conditions');
  if (body.exclude_conditions !== undefined) checkConditions(body.exclude_conditions, 'exclude_conditions');
  return {
    id: current.id,
    reason: body.reason ?? current.reason,
    start: start === before ? current.start : iso(start),
    end: end === previousEnd ? current.end : end === null ? null : iso(end),
    timezone,
    matchingConditions: body.matching_conditions ?? current.matchingConditions,
    excludeConditions: body.exclude_conditions ?? current.excludeConditions,
  };
}
