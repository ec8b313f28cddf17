import type { FastifyReply } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { repoParamsSchema } from '../../../shared/schemas/common.schema.ts';
import { logsPageSchema, logsQuerySchema } from '../../../shared/schemas/logs.schema.ts';
import { type EventFilters, type EventPageStart, listEventTexts } from '../../store/events.ts';
import { decodeCursor, encodeCursor, queryFingerprint } from '../cursor.ts';
import { errorResponses } from '../error-responses.ts';
import { ValidationError } from '../errors.ts';
import { eventJson } from '../event-response.ts';
import { buildLinkHeader } from '../link-header.ts';
import type { RouteContext } from '../route-context.ts';
import type { ZodApp } from '../zod-app.ts';

/**
 * Filters of Mergify's /logs that this server does not implement. A caller sending one would
 * believe the page filtered; it gets a 422 naming the parameter instead (other unknown
 * parameters are ignored, as FastAPI does).
 */
const UNSUPPORTED_FILTERS = [
  'not_pull_request',
  'batch_pull',
  'not_batch_pull',
  'not_event_type',
  'outcome',
  'not_outcome',
  'trigger',
  'not_trigger',
] as const;

function refuseUnsupportedFilters(url: string): void {
  const query = url.indexOf('?');
  if (query < 0) return;
  const given = new Set(new URLSearchParams(url.slice(query + 1)).keys());
  const issues = UNSUPPORTED_FILTERS.filter((name) => given.has(name)).map((name) => ({
    loc: ['query', name],
    msg: `${name} is not supported: filter with pull_request, base_ref, event_type, received_from and received_to`,
    type: 'unsupported_filter',
  }));
  if (issues.length > 0) throw new ValidationError(issues);
}

export function registerLogsRoute(app: ZodApp, ctx: RouteContext) {
  app.get(
    '/logs',
    {
      preValidation: async (request) => refuseUnsupportedFilters(request.url),
      schema: {
        summary: 'The event log, newest first',
        params: repoParamsSchema,
        querystring: logsQuerySchema,
        response: { 200: logsPageSchema, ...errorResponses },
      },
      // A page is sent as the JSON text the handler writes (see eventJson): every event was
      // validated against its schema when it was appended, and re-validating 100 of them per
      // page would cost as much as the rest of the route (docs/decisions/0002). The tests still
      // check every real page against the OpenAPI document.
      serializerCompiler: (route) =>
        route.httpStatus === '200'
          ? (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data))
          : serializerCompiler(route as unknown as Parameters<typeof serializerCompiler>[0]),
    },
    async (request, reply) => {
      const q = request.query;
      const repo = request.repository;
      const filters: EventFilters = {
        pullRequest: q.pull_request,
        baseRef: q.base_ref,
        types: q.event_type,
        receivedFrom: q.received_from,
        receivedTo: q.received_to,
      };
      // A cursor is only good for the query that made it.
      const fingerprint = queryFingerprint([
        repo.id,
        q.pull_request ?? null,
        q.base_ref ?? null,
        q.event_type ? [...new Set(q.event_type)].sort() : null,
        q.received_from?.toISOString() ?? null,
        q.received_to?.toISOString() ?? null,
        q.per_page,
      ]);
      const start: EventPageStart = q.cursor ? decodeCursor(q.cursor, fingerprint) : { kind: 'newest' };
      const page = await listEventTexts(ctx.store.readDb, repo.id, filters, start, q.per_page);

      if (page.hasNewer || page.hasOlder) {
        const newest = page.events[0]?.id;
        const oldest = page.events.at(-1)?.id;
        reply.header(
          'Link',
          buildLinkHeader(ctx.requestUrl(request), [
            { rel: 'first', cursor: null },
            {
              rel: 'prev',
              cursor:
                page.hasNewer && newest
                  ? encodeCursor({ kind: 'after', id: newest }, fingerprint)
                  : undefined,
            },
            {
              rel: 'next',
              cursor:
                page.hasOlder && oldest
                  ? encodeCursor({ kind: 'before', id: oldest }, fingerprint)
                  : undefined,
            },
            { rel: 'last', cursor: encodeCursor({ kind: 'oldest' }, fingerprint) },
          ]),
        );
      }
      const repositoryJson = JSON.stringify(repo.fullName);
      const events = page.events.map((e) => eventJson(e, repositoryJson)).join(',');
      // Sent as text (the typed reply takes only the page object the schema describes).
      return (reply as FastifyReply)
        .type('application/json; charset=utf-8')
        .send(`{"size":${page.events.length},"per_page":${q.per_page},"events":[${events}]}`);
    },
  );
}
