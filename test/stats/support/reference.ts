import type { EventToAppend } from '../../../app/store/events.ts';
import {
  CHECK_OUTCOMES,
  EXIT_REASONS,
  type StatsResponse,
} from '../../../shared/schemas/stats-response.schema.ts';

/*
 * A reference implementation of the statistics, in plain TypeScript over the event list (in
 * append order), written from docs/api.md ("Statistics") without the projections or SQL.
 * Test-only: the property test compares it with the server.
 */

export interface RefFilters {
  base_ref?: string[];
  partition_name?: string[];
  queue_name?: string[];
  priority_rule_name?: string[];
}

export interface RefQuery extends RefFilters {
  start: Date;
  end: Date;
}

type M = Record<string, unknown>;
const D = '__default__';
const HOUR = 3600;
const DAY = 86400;

export function refWidth(start: Date, end: Date): number {
  const period = (end.getTime() - start.getTime()) / 1000;
  if (period <= 2 * DAY) return HOUR;
  if (period <= 7 * DAY) return 4 * HOUR;
  if (period <= 60 * DAY) return DAY;
  return 2 * DAY;
}

const sec = (ms: number) => ms / 1000;
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const cmpList = (a: string[], b: string[]) => {
  for (let i = 0; i < a.length; i++) {
    const c = cmp(a[i] ?? '', b[i] ?? '');
    if (c !== 0) return c;
  }
  return 0;
};

const s = (m: M, k: string): string | null => (typeof m[k] === 'string' ? (m[k] as string) : null);
const n = (m: M, k: string): number | null => (typeof m[k] === 'number' ? (m[k] as number) : null);
const t = (m: M, k: string): number | null => (s(m, k) === null ? null : Date.parse(s(m, k) as string));

interface Keys {
  base_ref: string;
  partition_name: string;
  queue_name: string;
  priority_rule_name: string;
}

function keys(e: EventToAppend): Keys {
  const m = e.metadata;
  return {
    base_ref: s(m, 'branch') ?? e.baseRef ?? '',
    partition_name: s(m, 'partition_name') ?? D,
    queue_name: s(m, 'queue_name') ?? '',
    priority_rule_name: s(m, 'priority_rule_name') ?? D,
  };
}

function matches(k: Keys, q: RefFilters, priority = true): boolean {
  const ok = (list: string[] | undefined, v: string) => !list || list.length === 0 || list.includes(v);
  return (
    ok(q.base_ref, k.base_ref) &&
    ok(q.partition_name, k.partition_name) &&
    ok(q.queue_name, k.queue_name) &&
    (!priority || ok(q.priority_rule_name, k.priority_rule_name))
  );
}

const inWindow = (ms: number, q: RefQuery) => ms >= q.start.getTime() && ms <= q.end.getTime();

/** Groups items by key list and bucket; returns groups sorted, buckets sorted by start. */
function bucketed<T, B>(
  items: { keys: string[]; at: number; item: T }[],
  width: number,
  figures: (items: T[]) => B[] | B,
): { keys: string[]; stats: ({ start: string; end: string } & B)[] }[] {
  const groups = new Map<string, { keys: string[]; buckets: Map<number, T[]> }>();
  for (const it of items) {
    const id = JSON.stringify(it.keys);
    let g = groups.get(id);
    if (!g) {
      g = { keys: it.keys, buckets: new Map() };
      groups.set(id, g);
    }
    const b = Math.floor(sec(it.at) / width) * width;
    const list = g.buckets.get(b) ?? [];
    list.push(it.item);
    g.buckets.set(b, list);
  }
  return [...groups.values()]
    .sort((a, b) => cmpList(a.keys, b.keys))
    .map((g) => ({
      keys: g.keys,
      stats: [...g.buckets.entries()]
        .sort((a, b) => a[0] - b[0])
        .flatMap(([b, list]) => {
          const f = figures(list);
          return (Array.isArray(f) ? f : [f]).map((x) => ({ start: iso(b), end: iso(b + width - 1), ...x }));
        }),
    }));
}

const kl = (k: Keys) => [k.base_ref, k.partition_name, k.queue_name, k.priority_rule_name];
const kobj = (keys: string[]) => ({
  base_ref: keys[0] as string,
  partition_name: keys[1] as string,
  queue_name: keys[2] as string,
  priority_rule_name: keys[3] as string,
});

function checksOutcome(m: M): string {
  const code = s(m, 'abort_code');
  if (code) return code;
  if (m['checks_timed_out'] === true) return 'CHECKS_TIMEOUT';
  return ['success', 'neutral', 'skipped'].includes(s(m, 'checks_conclusion') ?? '')
    ? 'SUCCESS'
    : 'CHECKS_FAILED';
}

interface Session {
  keys: Keys;
  queuedAt: number;
  firstChecks: number | null;
  leftAt: number;
  merged: boolean;
  exit: string | null;
  freeze: number;
  schedule: number;
  retries: number;
  depth: number;
  last: string | null;
}

/** Sessions that left, from enter/checks/leave events. */
export function refSessions(events: readonly EventToAppend[]): Session[] {
  const firstChecks = new Map<string, number>();
  const retries = new Map<string, { retries: number; depth: number; last: string | null }>();
  const out: Session[] = [];
  const enterQueued = new Map<string, number>();
  for (const e of events) {
    const m = e.metadata;
    const id = s(m, 'session_id');
    const at = e.receivedAt.getTime();
    if (e.type === 'action.queue.enter' && id) {
      if (!enterQueued.has(id)) enterQueued.set(id, t(m, 'queued_at') ?? at);
    } else if (e.type === 'action.queue.checks_start' && id) {
      const f = firstChecks.get(id);
      if (f === undefined || at < f) firstChecks.set(id, at);
    } else if (e.type === 'action.queue.checks_end' && id) {
      const r = retries.get(id) ?? { retries: 0, depth: 0, last: null };
      const o = checksOutcome(m);
      if (o === 'CHECKS_RETRIED') r.retries++;
      r.depth = Math.max(r.depth, n(m, 'retry_attempt') ?? 0);
      r.last = o;
      retries.set(id, r);
    } else if (e.type === 'action.queue.leave') {
      const merged = m['merged'] === true;
      const reason = s(m, 'reason') ?? '';
      const code = /^([A-Z][A-Z0-9_]*)(?:$|: )/.exec(reason)?.[1] ?? null;
      const r = id ? retries.get(id) : undefined;
      out.push({
        keys: keys(e),
        queuedAt: t(m, 'queued_at') ?? (id ? enterQueued.get(id) : undefined) ?? at,
        firstChecks: id ? (firstChecks.get(id) ?? null) : null,
        leftAt: at,
        merged,
        exit: merged ? 'PR_MERGED' : code && (EXIT_REASONS as readonly string[]).includes(code) ? code : null,
        freeze: n(m, 'seconds_waiting_for_freeze') ?? 0,
        schedule: n(m, 'seconds_waiting_for_schedule') ?? 0,
        retries: r?.retries ?? 0,
        depth: r?.depth ?? 0,
        last: r?.last ?? null,
      });
    }
  }
  return out;
}

function ofType(events: readonly EventToAppend[], type: string, q: RefQuery, priority = true) {
  return events.filter(
    (e) => e.type === type && inWindow(e.receivedAt.getTime(), q) && matches(keys(e), q, priority),
  );
}

function gauge(events: readonly EventToAppend[], q: RefQuery, kind: 'q' | 'r') {
  const type = kind === 'q' ? 'action.queue.change' : 'action.queue.checks.change';
  const field = kind === 'q' ? 'size' : 'running_checks';
  const width = refWidth(q.start, q.end);
  const S = sec(q.start.getTime());
  const E = sec(q.end.getTime());
  const series = new Map<string, { keys: string[]; points: { at: number; v: number }[] }>();
  for (const e of events) {
    if (e.type !== type) continue;
    const k = keys(e);
    if (kind === 'r') k.priority_rule_name = '';
    if (!matches(k, q, kind === 'q')) continue;
    const list = kind === 'q' ? kl(k) : kl(k).slice(0, 3);
    const id = JSON.stringify(list);
    const entry = series.get(id) ?? { keys: list, points: [] };
    entry.points.push({ at: sec(e.receivedAt.getTime()), v: n(e.metadata, field) ?? 0 });
    series.set(id, entry);
  }
  const groups: {
    keys: string[];
    stats: { start: string; end: string; avg: number; max: number; min: number }[];
  }[] = [];
  for (const { keys: gk, points } of series.values()) {
    // stable sort by time keeps append order for equal times
    const pts = points.map((p, i) => ({ ...p, i })).sort((a, b) => a.at - b.at || a.i - b.i);
    const valueAt = (x: number) => {
      let v = 0;
      for (const p of pts) if (p.at <= x) v = p.v;
      return v;
    };
    const stats = [];
    for (let b = Math.floor(S / width) * width; b <= E; b += width) {
      const a = Math.max(b, S);
      const z = Math.min(b + width, E);
      const inSpan = pts.filter((p) => p.at >= a && p.at < b + width && p.at <= E);
      const v0 = valueAt(a);
      const values = [v0, ...inSpan.map((p) => p.v)];
      const max = Math.max(...values);
      // A bucket starting at end_at (after start_at) is that instant: only its readings count.
      if (inSpan.length === 0 && (max <= 0 || (z === a && a > S))) continue;
      let avg: number;
      if (z > a) {
        let area = 0;
        let cur = v0;
        let from = a;
        for (const p of inSpan) {
          if (p.at > from) {
            area += cur * (Math.min(p.at, z) - from);
            from = Math.min(p.at, z);
          }
          cur = p.v;
        }
        area += cur * (z - from);
        avg = area / (z - a);
      } else {
        avg = v0;
      }
      stats.push({ start: iso(b), end: iso(b + width - 1), avg, max, min: Math.min(...values) });
    }
    if (stats.length > 0) groups.push({ keys: gk, stats });
  }
  return groups.sort((a, b) => cmpList(a.keys, b.keys));
}

type Out<E extends keyof typeof builders> = ReturnType<(typeof builders)[E]>;

const builders = {
  queues_entered_count(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'queues_entered_count'> {
    const items = ofType(ev, 'action.queue.enter', q).map((e) => ({
      keys: kl(keys(e)),
      at: e.receivedAt.getTime(),
      item: e,
    }));
    return {
      groups: bucketed(items, refWidth(q.start, q.end), (l) => ({ entered: l.length })).map((g) => ({
        ...kobj(g.keys),
        stats: g.stats,
      })),
    };
  },
  queues_merged_count(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'queues_merged_count'> {
    const items = ev
      .filter((e) => e.type === 'action.queue.merged' && inWindow(e.receivedAt.getTime(), q))
      .map((e) => {
        const k = keys(e);
        const names = (e.metadata['partition_names'] as string[]).length
          ? (e.metadata['partition_names'] as string[])
          : [D];
        return { k, names, e };
      })
      .filter(
        ({ k, names }) =>
          matches({ ...k, partition_name: '' }, { ...q, partition_name: undefined }) &&
          (!q.partition_name?.length || names.some((p) => q.partition_name?.includes(p))),
      )
      .map(({ k, names, e }) => ({
        keys: [k.base_ref, JSON.stringify(names), k.queue_name, k.priority_rule_name],
        at: e.receivedAt.getTime(),
        item: e,
      }));
    return {
      groups: bucketed(items, refWidth(q.start, q.end), (l) => ({ merged: l.length })).map((g) => ({
        base_ref: g.keys[0] as string,
        partition_names: JSON.parse(g.keys[1] as string),
        queue_name: g.keys[2] as string,
        priority_rule_name: g.keys[3] as string,
        stats: g.stats,
      })),
    };
  },
  queues_checks_outcome_count(
    ev: readonly EventToAppend[],
    q: RefQuery,
  ): StatsResponse<'queues_checks_outcome_count'> {
    const items = ofType(ev, 'action.queue.checks_end', q).map((e) => ({
      keys: kl(keys(e)),
      at: e.receivedAt.getTime(),
      item: checksOutcome(e.metadata),
    }));
    return {
      groups: bucketed(items, refWidth(q.start, q.end), (l) =>
        CHECK_OUTCOMES.filter((o) => l.includes(o)).map((o) => ({
          check_outcome: o,
          count: l.filter((x) => x === o).length,
        })),
      ).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    } as StatsResponse<'queues_checks_outcome_count'>;
  },
  merge_queue_checks_outcome(
    ev: readonly EventToAppend[],
    q: RefQuery,
  ): StatsResponse<'merge_queue_checks_outcome'> {
    const groups = new Map<string, { keys: string[]; stats: Record<string, number> }>();
    for (const e of ofType(ev, 'action.queue.checks_end', q)) {
      const k = kl(keys(e));
      const id = JSON.stringify(k);
      const g = groups.get(id) ?? { keys: k, stats: Object.fromEntries(CHECK_OUTCOMES.map((o) => [o, 0])) };
      g.stats[checksOutcome(e.metadata)] = (g.stats[checksOutcome(e.metadata)] ?? 0) + 1;
      groups.set(id, g);
    }
    return {
      groups: [...groups.values()]
        .sort((a, b) => cmpList(a.keys, b.keys))
        .map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    } as StatsResponse<'merge_queue_checks_outcome'>;
  },
  average_ci_runtime(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'average_ci_runtime'> {
    const items = ofType(ev, 'action.queue.checks_end', q).flatMap((e) => {
      const a = t(e.metadata, 'checks_started_at');
      const b = t(e.metadata, 'checks_ended_at');
      if (a === null || b === null) return [];
      return [{ keys: kl(keys(e)), at: e.receivedAt.getTime(), item: Math.max(0, sec(b - a)) }];
    });
    return {
      groups: bucketed(items, refWidth(q.start, q.end), (l) => {
        const sum = l.reduce((x, y) => x + y, 0);
        return { runtime: sum / l.length, sum_runtime: sum, count_runtime: l.length };
      }).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    };
  },
  average_queue_time(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'average_queue_time'> {
    const items = sessionsIn(ev, q);
    return {
      groups: bucketed(items, refWidth(q.start, q.end), (l) => {
        const mean = (f: (x: Session) => number) => l.reduce((a, x) => a + f(x), 0) / l.length;
        const idle_capacity = mean((x) =>
          Math.max(0, sec(Math.min(x.firstChecks ?? x.leftAt, x.leftAt) - x.queuedAt)),
        );
        const idle_schedule = mean((x) => x.schedule);
        const idle_freeze = mean((x) => x.freeze);
        return {
          queue_time: idle_capacity + idle_schedule + idle_freeze,
          idle_capacity,
          idle_schedule,
          idle_freeze,
        };
      }).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    };
  },
  total_queue_time(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'total_queue_time'> {
    return {
      groups: bucketed(sessionsIn(ev, q), refWidth(q.start, q.end), (l) => {
        const times = l.map((x) => Math.max(0, sec(x.leftAt - x.queuedAt)));
        const sum = times.reduce((a, b) => a + b, 0);
        return {
          avg_queue_time: sum / times.length,
          max_queue_time: Math.max(...times),
          min_queue_time: Math.min(...times),
          sum_queue_time: sum,
          count_queue_time: times.length,
        };
      }).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    };
  },
  queue_size(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'queue_size'> {
    return {
      groups: gauge(ev, q, 'q').map((g) => ({
        ...kobj(g.keys),
        stats: g.stats.map((b) => ({
          start: b.start,
          end: b.end,
          avg_size: b.avg,
          max_size: b.max,
          min_size: b.min,
        })),
      })),
    };
  },
  running_speculative_checks(
    ev: readonly EventToAppend[],
    q: RefQuery,
  ): StatsResponse<'running_speculative_checks'> {
    return {
      groups: gauge(ev, q, 'r').map((g) => ({
        base_ref: g.keys[0] as string,
        partition_name: g.keys[1] as string,
        queue_name: g.keys[2] as string,
        stats: g.stats.map((b) => ({
          start: b.start,
          end: b.end,
          avg_running_checks: b.avg,
          max_running_checks: b.max,
          min_running_checks: b.min,
        })),
      })),
    };
  },
  batch_size(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'batch_size'> {
    const seen = new Set<string>();
    const items: { keys: string[]; at: number; item: number }[] = [];
    ev.forEach((e, i) => {
      if (e.type !== 'action.queue.checks_start') return;
      const train = s(e.metadata, 'train_car_id');
      const run = train === null ? `#${i}` : `${train}@${e.receivedAt.toISOString()}`;
      if (seen.has(run)) return;
      seen.add(run);
      if (!inWindow(e.receivedAt.getTime(), q) || !matches(keys(e), q)) return;
      items.push({
        keys: kl(keys(e)),
        at: e.receivedAt.getTime(),
        item: (e.metadata['pull_request_numbers'] as unknown[]).length,
      });
    });
    return {
      groups: bucketed(items, refWidth(q.start, q.end), (l) => {
        const sum = l.reduce((a, b) => a + b, 0);
        return {
          avg_batch_size: sum / l.length,
          max_batch_size: Math.max(...l),
          min_batch_size: Math.min(...l),
          sum_batch_size: sum,
          count_batch_size: l.length,
        };
      }).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    };
  },
  batch_bisection(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'batch_bisection'> {
    const w = refWidth(q.start, q.end);
    const started = ofType(ev, 'action.queue.batch_bisection_start', q).map((e) => ({
      keys: kl(keys(e)),
      at: e.receivedAt.getTime(),
      item: e.metadata,
    }));
    const completed = ofType(ev, 'action.queue.batch_bisection_end', q).map((e) => ({
      keys: kl(keys(e)),
      at: e.receivedAt.getTime(),
      item: e.metadata,
    }));
    return {
      started: bucketed(started, w, (l) => ({
        bisection_count: l.length,
        avg_depth: l.reduce((a, m) => a + (n(m, 'bisection_depth') ?? 0), 0) / l.length,
        max_depth: Math.max(...l.map((m) => n(m, 'bisection_depth') ?? 0)),
        avg_batch_size_before_split:
          l.reduce((a, m) => a + (n(m, 'batch_size_before_split') ?? 0), 0) / l.length,
      })).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
      completed: bucketed(completed, w, (l) => ({
        bisection_completed_count: l.length,
        culprit_found_count: l.filter((m) => m['culprit_found'] === true).length,
        max_failure_reached_count: l.filter((m) => m['max_failure_resolution_reached'] === true).length,
      })).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    };
  },
  checks_retries(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'checks_retries'> {
    return {
      groups: bucketed(sessionsIn(ev, q), refWidth(q.start, q.end), (l) => {
        const withR = l.filter((x) => x.retries > 0);
        const recovered = withR.filter((x) => x.last === 'SUCCESS').length;
        return {
          total_retries: l.reduce((a, x) => a + x.retries, 0),
          sessions_with_retries: withR.length,
          recovered,
          not_recovered: withR.filter((x) => x.last === 'CHECKS_FAILED' || x.last === 'CHECKS_TIMEOUT')
            .length,
          recovery_rate: withR.length ? recovered / withR.length : null,
          avg_retry_depth: withR.length ? withR.reduce((a, x) => a + x.depth, 0) / withR.length : null,
          max_retry_depth: withR.length ? Math.max(...withR.map((x) => x.depth)) : 0,
        };
      }).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    };
  },
  failure_rate(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'failure_rate'> {
    return {
      groups: bucketed(sessionsIn(ev, q), refWidth(q.start, q.end), (l) => {
        const failures = l.filter((x) => x.exit === 'CHECKS_FAILED' || x.exit === 'CHECKS_TIMEOUT').length;
        return { total: l.length, failures, failure_rate: failures / l.length };
      }).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    };
  },
  queues_pr_exit_reasons(ev: readonly EventToAppend[], q: RefQuery): StatsResponse<'queues_pr_exit_reasons'> {
    const items = sessionsIn(ev, q).filter((x) => x.item.exit !== null);
    return {
      groups: bucketed(items, refWidth(q.start, q.end), (l) =>
        EXIT_REASONS.filter((r) => l.some((x) => x.exit === r)).map((r) => ({
          exit_reason: r,
          count: l.filter((x) => x.exit === r).length,
        })),
      ).map((g) => ({ ...kobj(g.keys), stats: g.stats })),
    } as StatsResponse<'queues_pr_exit_reasons'>;
  },
};

function sessionsIn(ev: readonly EventToAppend[], q: RefQuery) {
  return refSessions(ev)
    .filter((x) => inWindow(x.leftAt, q) && matches(x.keys, q))
    .map((x) => ({ keys: kl(x.keys), at: x.leftAt, item: x }));
}

export type RefEndpoint = keyof typeof builders;
export const refEndpoints = Object.keys(builders) as RefEndpoint[];

/** What the endpoint must answer for these events and this query. */
export function referenceStats<E extends RefEndpoint>(
  endpoint: E,
  events: readonly EventToAppend[],
  q: RefQuery,
): Out<E> {
  return builders[endpoint](events, q) as Out<E>;
}

/** Time to merge, per partition and queue (queue rules: those seen, sorted; no configuration). */
export function referenceTimeToMerge(events: readonly EventToAppend[], at: Date, branch?: string) {
  const from = at.getTime() - 90 * DAY * 1000;
  const sessions = refSessions(events).filter(
    (x) =>
      x.leftAt >= from && x.leftAt <= at.getTime() && (branch === undefined || x.keys.base_ref === branch),
  );
  const partitions = [...new Set(sessions.map((x) => x.keys.partition_name))].sort(cmp);
  const queues = [...new Set(sessions.map((x) => x.keys.queue_name))].sort(cmp);
  return partitions.map((p) => ({
    partition_name: p,
    queues: queues.map((qn) => {
      const ts = sessions
        .filter((x) => x.merged && x.keys.partition_name === p && x.keys.queue_name === qn)
        .map((x) => Math.max(0, sec(x.leftAt - x.queuedAt) - x.freeze - x.schedule))
        .sort((a, b) => a - b);
      if (ts.length === 0) return { queue_name: qn, time_to_merge: { mean: null, median: null } };
      const mid = Math.floor(ts.length / 2);
      const median =
        ts.length % 2 ? (ts[mid] as number) : ((ts[mid - 1] as number) + (ts[mid] as number)) / 2;
      return { queue_name: qn, time_to_merge: { mean: ts.reduce((a, b) => a + b, 0) / ts.length, median } };
    }),
  }));
}
