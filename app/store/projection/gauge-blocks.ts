import { BUCKET_WIDTH_LADDER, LONGEST_BUCKET_WIDTH } from '../../../shared/stats/buckets.ts';
import type { GaugeRow, GroupKeys } from './projection-rows.ts';

/*
 * Gauge blocks (stats_gauge_blocks): per gauge series (kind + group keys) and per epoch-aligned
 * hour and day, a summary of the readings that fall in the block — and of nothing else, so
 * appending a reading only touches its own blocks: first and last reading times, the time integral of the value from the first reading to the
 * last (value · milliseconds, exact in int8), the highest and lowest reading, the last value.
 * The value carried in from before the block is applied when the block is read
 * (gauge-buckets.ts). Readings are ordered by (time, event id).
 */

/**
 * Block widths in seconds: hours and days. A bucket (1 h, 4 h, 1 d, 2 d, epoch-aligned) is tiled
 * by the widest blocks that fit: 4 one-hour blocks make a 4-hour bucket, 2 one-day blocks a
 * 2-day one. Two widths rather than one per bucket width: each width costs a row per series
 * and append, while reads stay at about 170 rows per series for 7 days (1 h blocks) and 90 for
 * 90 days (docs/decisions/0007-gauge-blocks.md).
 */
export const GAUGE_BLOCK_WIDTHS: readonly number[] = [3_600, 86_400];

// Blocks no wider than a bucket tile it exactly; the narrowest fits in every bucket.
for (const bucket of [...BUCKET_WIDTH_LADDER.map((r) => r.width), LONGEST_BUCKET_WIDTH]) {
  const fitting = GAUGE_BLOCK_WIDTHS.filter((w) => w <= bucket);
  if (fitting.length === 0 || fitting.some((w) => bucket % w !== 0)) {
    throw new Error(`gauge blocks do not tile ${bucket}-second buckets`);
  }
}

/** A reading; readings at the same instant are given in event id order. */
export interface GaugeReading {
  at: Date;
  value: number;
}

export interface GaugeBlockSummary {
  first_at: Date;
  last_at: Date;
  /** ∫ value dt from the first reading to the last, in value · milliseconds. */
  area_to_last: bigint;
  max_value: number;
  min_value: number;
  last_value: number;
}

export interface GaugeBlockRow extends GroupKeys, GaugeBlockSummary {
  kind: 'q' | 'r';
  /** Seconds. */
  width: number;
  block_start: Date;
}

/** Summary of the readings of one block: at least one, in (time, event id) order. */
export function summarizeBlock(readings: readonly GaugeReading[]): GaugeBlockSummary {
  const first = readings[0];
  if (first === undefined) throw new Error('a gauge block has at least one reading');
  let area = 0n;
  let max = first.value;
  let min = first.value;
  let previous = first;
  for (let i = 1; i < readings.length; i++) {
    const r = readings[i] as GaugeReading;
    const span = r.at.getTime() - previous.at.getTime();
    const part = previous.value * span;
    area += Number.isSafeInteger(part) ? BigInt(part) : BigInt(previous.value) * BigInt(span);
    if (r.value > max) max = r.value;
    if (r.value < min) min = r.value;
    previous = r;
  }
  return {
    first_at: first.at,
    last_at: previous.at,
    area_to_last: area,
    max_value: max,
    min_value: min,
    last_value: previous.value,
  };
}

export type GaugeBlockId = GroupKeys & Pick<GaugeBlockRow, 'kind' | 'width' | 'block_start'>;

const SEP = '\u0000';

export const blockIdKey = (b: GaugeBlockId) =>
  [
    b.kind,
    b.width,
    b.block_start.getTime(),
    b.base_ref,
    b.partition_name,
    b.queue_name,
    b.priority_rule_name,
  ].join(SEP);

/**
 * The blocks of gauge readings given in event id order (one append's), one row per (series,
 * width, block) with what those readings say.
 */
export function gaugeBlockRows(gauges: readonly GaugeRow[]): GaugeBlockRow[] {
  const groups = new Map<string, { id: GaugeBlockId; readings: GaugeReading[] }>();
  for (const g of gauges) {
    const series = [g.kind, g.base_ref, g.partition_name, g.queue_name, g.priority_rule_name].join(SEP);
    const at = g.at.getTime();
    for (const width of GAUGE_BLOCK_WIDTHS) {
      const ms = width * 1000;
      const start = Math.floor(at / ms) * ms;
      const key = `${series}${SEP}${width}${SEP}${start}`;
      let group = groups.get(key);
      if (!group) {
        group = {
          id: {
            kind: g.kind,
            width,
            block_start: new Date(start),
            base_ref: g.base_ref,
            partition_name: g.partition_name,
            queue_name: g.queue_name,
            priority_rule_name: g.priority_rule_name,
          },
          readings: [],
        };
        groups.set(key, group);
      }
      group.readings.push(g);
    }
  }
  const rows: GaugeBlockRow[] = [];
  for (const { id, readings } of groups.values()) {
    // A stable sort by time keeps the id order of readings at the same instant.
    let sorted = true;
    for (let i = 1; i < readings.length && sorted; i++) {
      sorted = (readings[i - 1] as GaugeReading).at <= (readings[i] as GaugeReading).at;
    }
    if (!sorted) readings.sort((a, b) => a.at.getTime() - b.at.getTime());
    // Object.assign, not spread: spread alone would cost several times the rest of this function
    // (docs/decisions/0023-statistics-hot-paths.md).
    rows.push(Object.assign(summarizeBlock(readings), id));
  }
  return rows;
}
