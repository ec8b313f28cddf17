import { sql } from 'kysely';
import type { Queryable } from '../store/database.ts';
import { GAUGE_BLOCK_WIDTHS } from '../store/projection/gauge-blocks.ts';
import type { GroupKeys } from '../store/projection/projection-rows.ts';
import { type StatsParams, whereSql, widthOf } from './stats-params.ts';

/*
 * Time-weighted gauges (queue size, running checks) by interval. The value at an instant is
 * the last reading at or before it (0 before the first one). A bucket is measured over its
 * part of the period, [max(bucket start, start_at), min(bucket end, end_at)]: avg is the
 * time-weighted mean over that span (the value in force at its start carried in), max/min
 * cover the value in force at the span's start and every reading in it. A zero-length span
 * (start_at = end_at, or end_at on a bucket's first second) has avg = the value in force. A
 * bucket is reported when it holds a reading or a value > 0 — but a bucket starting at end_at
 * (after start_at) only when it holds a reading at that instant.
 *
 * Read per series: the value in force just before start_at, the readings themselves in the
 * parts of the period that are not whole hours, and in between the gauge blocks
 * (gauge-blocks.ts) that tile the whole hours — the widest that fit, never wider than a
 * bucket — so a period costs a few rows per series and bucket, whatever the readings. The
 * sweep below carries the value in force from piece to piece and bucket to bucket.
 */

export interface GaugeBucketRow extends GroupKeys {
  bucket: string;
  avg: number;
  max: number;
  min: number;
}

const HOUR_MS = 3_600_000;

/** Aligned blocks tiling [from, to) (whole hours), widest first where they fit, as ranges per width. */
export function blockRanges(from: number, to: number, maxWidthSeconds: number) {
  const widths = GAUGE_BLOCK_WIDTHS.filter((w) => w <= maxWidthSeconds)
    .map((w) => w * 1000)
    .reverse();
  const ranges: { width: number; from: number; to: number }[] = [];
  for (let t = from; t < to; ) {
    const w = widths.find((x) => t % x === 0 && t + x <= to) ?? HOUR_MS;
    const last = ranges.at(-1);
    if (last && last.width === w && last.to === t) last.to = t + w;
    else ranges.push({ width: w, from: t, to: t + w });
    t += w;
  }
  return ranges;
}

/** One source row: the value before the period (0), a reading (1) or a block (2). */
interface SourceRow extends GroupKeys {
  src: 0 | 1 | 2;
  /** Reading time or block start (ms). */
  t: number | null;
  /** Event id of a reading. */
  n: string | null;
  /** The reading's value, a block's last value, the value before the period. */
  value: number | null;
  first_ms: number | null;
  last_ms: number | null;
  area: number | null;
  max: number | null;
  min: number | null;
}

interface Piece {
  /** Reading time, block start. */
  t: number;
  order: bigint;
  /** Blocks: first and last reading, integral between them (value · ms). */
  block: { first: number; last: number; area: number } | null;
  value: number;
  max: number;
  min: number;
}

const ms = (column: string) => sql`(extract(epoch FROM ${sql.ref(column)}) * 1000)::float8`;

export async function loadGaugeBuckets(
  db: Queryable,
  params: StatsParams,
  kind: 'q' | 'r',
): Promise<{ rows: GaugeBucketRow[]; width: number }> {
  const width = widthOf(params);
  const W = width * 1000;
  const S = params.start.getTime();
  // A gauge is known up to now: its last value is not carried into the future.
  const E = Math.min(params.end.getTime(), params.until?.getTime() ?? Number.POSITIVE_INFINITY);
  if (E < S) return { width, rows: [] };
  // Whole hours [A, Z) come from blocks, the rest from readings: [S, A) and [Z, E] (all of
  // [S, E] when both ends fall in one hour).
  let A = Math.ceil(S / HOUR_MS) * HOUR_MS;
  let Z = Math.floor(E / HOUR_MS) * HOUR_MS;
  if (A > Z) {
    A = E + 1;
    Z = E + 1;
  }
  const ranges = blockRanges(A, Z, width);
  const iso = (t: number) => new Date(t).toISOString();
  const priority = kind === 'q';
  const keyMatch = (alias: string) =>
    sql`${sql.ref(`${alias}.base_ref`)} = k.base_ref AND ${sql.ref(`${alias}.partition_name`)} = k.partition_name
      AND ${sql.ref(`${alias}.queue_name`)} = k.queue_name AND ${sql.ref(`${alias}.priority_rule_name`)} = k.priority_rule_name`;
  const readingsIn = (from: string, to: string, last: boolean) => sql`
    SELECT k.base_ref, k.partition_name, k.queue_name, k.priority_rule_name, 1 AS src, ${ms('g.at')} AS t,
      g.event_id::text AS n, g.value, NULL::float8, NULL::float8, NULL::float8, NULL::int, NULL::int
    FROM k JOIN stats_gauges g ON g.repository_id = ${params.repositoryId}::bigint AND g.kind = ${kind}
      AND ${keyMatch('g')} AND g.at >= ${from}::timestamptz
      AND g.at ${last ? sql`<=` : sql`<`} ${to}::timestamptz`;
  const { rows } = await sql<SourceRow>`
    WITH k AS (
      SELECT base_ref, partition_name, queue_name, priority_rule_name FROM stats_gauge_keys
      WHERE ${whereSql(params, { time: null, priority })} AND kind = ${kind}
    )
    SELECT k.base_ref, k.partition_name, k.queue_name, k.priority_rule_name, 0 AS src, NULL::float8 AS t,
      NULL::text AS n, v.value, NULL::float8 AS first_ms, NULL::float8 AS last_ms, NULL::float8 AS area,
      NULL::int AS max, NULL::int AS min
    FROM k LEFT JOIN LATERAL (
      SELECT g.value FROM stats_gauges g
      WHERE g.repository_id = ${params.repositoryId}::bigint AND g.kind = ${kind} AND ${keyMatch('g')}
        AND g.at < ${iso(S)}::timestamptz
      ORDER BY g.at DESC, g.event_id DESC LIMIT 1
    ) v ON true
    ${S < A ? sql`UNION ALL ${readingsIn(iso(S), iso(Math.min(A, E)), A > E)}` : sql``}
    ${Z <= E ? sql`UNION ALL ${readingsIn(iso(Z), iso(E), true)}` : sql``}
    ${
      ranges.length > 0
        ? sql`UNION ALL
    SELECT b.base_ref, b.partition_name, b.queue_name, b.priority_rule_name, 2, ${ms('b.block_start')},
      NULL, b.last_value, ${ms('b.first_at')}, ${ms('b.last_at')}, b.area_to_last::float8,
      b.max_value, b.min_value
    FROM unnest(${ranges.map((r) => r.width / 1000)}::int4[], ${ranges.map((r) => iso(r.from))}::timestamptz[],
      ${ranges.map((r) => iso(r.to))}::timestamptz[]) AS r(width, lo, hi)
    JOIN stats_gauge_blocks b ON b.repository_id = ${params.repositoryId}::bigint AND b.kind = ${kind}
      AND b.width = r.width AND b.block_start >= r.lo AND b.block_start < r.hi
    WHERE ${whereSql(params, { alias: 'b', time: null, priority })}`
        : sql``
    }`.execute(db);

  const series = new Map<string, { keys: GroupKeys; before: number; pieces: Piece[] }>();
  for (const r of rows) {
    const id = [r.base_ref, r.partition_name, r.queue_name, r.priority_rule_name].join('\u0000');
    let s = series.get(id);
    if (!s) {
      s = {
        keys: {
          base_ref: r.base_ref,
          partition_name: r.partition_name,
          queue_name: r.queue_name,
          priority_rule_name: r.priority_rule_name,
        },
        before: 0,
        pieces: [],
      };
      series.set(id, s);
    }
    const value = r.value ?? 0;
    if (r.src === 0) s.before = value;
    else if (r.src === 1) {
      s.pieces.push({ t: r.t ?? 0, order: BigInt(r.n ?? 0), block: null, value, max: value, min: value });
    } else {
      const t = r.t ?? 0;
      s.pieces.push({
        t,
        order: 0n,
        block: { first: r.first_ms ?? t, last: r.last_ms ?? t, area: r.area ?? 0 },
        value,
        max: r.max ?? value,
        min: r.min ?? value,
      });
    }
  }

  const out: GaugeBucketRow[] = [];
  const firstBucket = Math.floor(S / W) * W;
  for (const { keys, before, pieces } of series.values()) {
    if (pieces.length === 0 && before <= 0) continue;
    pieces.sort((a, b) => a.t - b.t || (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
    let value = before; // in force just before the current instant
    let i = 0;
    for (let b = firstBucket; b <= E; b += W) {
      const a = Math.max(b, S);
      const z = Math.min(b + W, E);
      const atStart = value;
      let startHasReading = false;
      let area = 0;
      let from = a;
      let max = Number.NEGATIVE_INFINITY;
      let min = Number.POSITIVE_INFINITY;
      let readings = false;
      for (; i < pieces.length && (pieces[i] as Piece).t < b + W; i++) {
        const p = pieces[i] as Piece;
        const first = p.block ? p.block.first : p.t;
        if (first === a) startHasReading = true;
        area += value * (first - from);
        if (p.block) {
          area += p.block.area;
          from = p.block.last;
        } else from = p.t;
        value = p.value;
        if (p.max > max) max = p.max;
        if (p.min < min) min = p.min;
        readings = true;
      }
      area += value * (z - from);
      // The value in force at a: the last reading at a when there is one (already counted).
      if (!startHasReading) {
        if (atStart > max) max = atStart;
        if (atStart < min) min = atStart;
      }
      // A bucket that starts at end_at (after start_at) is the instant end_at: reported only
      // for readings at that instant.
      if (!readings && (max <= 0 || (z === a && a > S))) continue;
      out.push({
        ...keys,
        bucket: String(b / 1000),
        avg: z > a ? area / (z - a) : value,
        max,
        min,
      });
    }
  }
  return { width, rows: out };
}
