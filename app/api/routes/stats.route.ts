import { serializerCompiler } from 'fastify-type-provider-zod';
import { repoParamsSchema } from '../../../shared/schemas/common.schema.ts';
import {
  resolveStatsWindow,
  type StatsQuery,
  statsEndpoints,
  statsQuerySchemas,
} from '../../../shared/schemas/stats-query.schema.ts';
import { statsResponseSchemas } from '../../../shared/schemas/stats-response.schema.ts';
import { loadStats, loadTimeToMerge, type PeriodEndpoint } from '../../stats/endpoints.ts';
import { DEFAULT_KEY } from '../../stats/projection-rows.ts';
import { errorResponses } from '../error-responses.ts';
import { ValidationError } from '../errors.ts';
import type { RouteContext } from '../route-context.ts';
import type { ZodApp } from '../zod-app.ts';

const summaries: Record<(typeof statsEndpoints)[number], string> = {
  time_to_merge: 'Mean and median time to merge per partition and queue rule',
  merge_queue_checks_outcome: 'Checks outcomes over the period',
  queues_checks_outcome_count: 'Checks outcomes by interval',
  queues_entered_count: 'Pull requests entering queues by interval',
  queues_merged_count: 'Pull requests merged by interval',
  average_ci_runtime: 'CI runtime by interval',
  average_queue_time: 'Idle time in queue by interval',
  total_queue_time: 'Total time in queue by interval',
  queue_size: 'Time-weighted queue size by interval',
  running_speculative_checks: 'Time-weighted running speculative checks by interval',
  batch_size: 'Batch sizes by interval',
  batch_bisection: 'Bisections started and completed by interval',
  checks_retries: 'Checks retries by interval',
  failure_rate: 'Failure rate of queue sessions by interval',
  queues_pr_exit_reasons: 'Queue-session exits by reason by interval',
};

/** `GET /stats/<endpoint>` for the 15 statistics: parse → one stats read → the documented body. */
export function registerStatsRoutes(app: ZodApp, ctx: RouteContext) {
  for (const endpoint of statsEndpoints) {
    const schema = {
      summary: summaries[endpoint],
      tags: ['statistics'],
      params: repoParamsSchema,
      querystring: statsQuerySchemas[endpoint],
      response: { 200: statsResponseSchemas[endpoint], ...errorResponses },
    };
    // Figures are sent as built, without re-validating them against the response schema: the
    // loaders are typed by it, the tests check every answer against the OpenAPI document, and
    // validating the larger answers (thousands of buckets) would cost more than building them
    // (docs/decisions/0002-api-responses-are-not-validated-again.md).
    const config = {
      serializerCompiler: (route: { httpStatus?: string | undefined }) =>
        route.httpStatus === '200'
          ? (data: unknown) => JSON.stringify(data)
          : serializerCompiler(route as unknown as Parameters<typeof serializerCompiler>[0]),
    };
    if (endpoint === 'time_to_merge') {
      app.get(`/stats/${endpoint}`, { schema, ...config }, async (request) => {
        const q = request.query as { at?: Date; branch?: string };
        return loadTimeToMerge(ctx.store.readDb, {
          repositoryId: request.repository.id,
          at: q.at ?? ctx.now(),
          branch: q.branch,
        });
      });
      continue;
    }
    app.get(`/stats/${endpoint}`, { schema, ...config }, async (request) => {
      const q = request.query as Partial<StatsQuery>;
      const now = ctx.now();
      const window = resolveStatsWindow(q, now);
      if (!window.ok) throw new ValidationError([window.issue]);
      const body = await loadStats(endpoint as PeriodEndpoint, ctx.store.readDb, {
        repositoryId: request.repository.id,
        start: window.start,
        end: window.end,
        until: now,
        filters: {
          baseRef: q.base_ref,
          partitionName: q.partition_name,
          queueName: q.queue_name,
          priorityRuleName: endpoint === 'running_speculative_checks' ? undefined : q.priority_rule_name,
        },
      });
      return withNullPriorityRules(body);
    });
  }
}

/**
 * The projections keep "no priority rule" as DEFAULT_KEY (a filter value can name it); groups
 * show it as null, as the events and the status do (docs/api.md, "Statistics").
 */
function withNullPriorityRules<T>(body: T): T {
  const lists = body as { groups?: unknown; started?: unknown; completed?: unknown };
  for (const list of [lists.groups, lists.started, lists.completed]) {
    if (!Array.isArray(list)) continue;
    for (const group of list as { priority_rule_name?: string | null }[]) {
      if (group.priority_rule_name === DEFAULT_KEY) group.priority_rule_name = null;
    }
  }
  return body;
}
