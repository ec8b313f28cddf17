import type { GroupKeys } from '../store/projection/projection-rows.ts';

/*
 * Shapes SQL rows (group keys, bucket start, figures) into the API's groups: ordered by
 * base_ref, partition, queue_name, priority_rule_name (code-unit order), buckets by start.
 */

export interface BucketRow {
  bucket: string | number;
}

const SEP = '\u0000';

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareKeyLists(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === undefined) return -1;
    if (b[i] === undefined) return 1;
    const c = compareText(a[i] as string, b[i] as string);
    if (c !== 0) return c;
  }
  return 0;
}

export function isoSecond(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z');
}

/** `start`/`end` of the bucket starting at `epochSeconds`. */
export function bucketBounds(epochSeconds: number, width: number): { start: string; end: string } {
  return { start: isoSecond(epochSeconds), end: isoSecond(epochSeconds + width - 1) };
}

/**
 * Groups rows by the key list `keysOf` returns, sorted by those keys; each group's buckets are
 * `toBucket(row)` sorted by start then `order`. Bucket bounds are made once per bucket and
 * buckets sorted by their start as a number: 90 days of a busy repository are ~10k buckets,
 * and formatting and comparing ISO times for each of them would be a large part of the read
 * (docs/decisions/0023-statistics-hot-paths.md).
 */
export function groupRows<R extends BucketRow, G, B extends { start: string }>(options: {
  rows: readonly R[];
  keysOf: (row: R) => string[];
  makeGroup: (row: R, buckets: B[]) => G;
  toBucket: (row: R, bounds: { start: string; end: string }) => B;
  width: number;
  order?: (a: B, b: B) => number;
}): G[] {
  const bounds = new Map<number, { start: string; end: string }>();
  const groups = new Map<string, { keys: string[]; first: R; buckets: { at: number; bucket: B }[] }>();
  for (const row of options.rows) {
    const keys = options.keysOf(row);
    const id = keys.join(SEP);
    let group = groups.get(id);
    if (!group) {
      group = { keys, first: row, buckets: [] };
      groups.set(id, group);
    }
    const at = Number(row.bucket);
    let b = bounds.get(at);
    if (b === undefined) {
      b = bucketBounds(at, options.width);
      bounds.set(at, b);
    }
    group.buckets.push({ at, bucket: options.toBucket(row, b) });
  }
  const order = options.order;
  return [...groups.values()]
    .sort((a, b) => compareKeyLists(a.keys, b.keys))
    .map((g) => {
      g.buckets.sort((a, b) => a.at - b.at || (order ? order(a.bucket, b.bucket) : 0));
      return options.makeGroup(
        g.first,
        g.buckets.map((x) => x.bucket),
      );
    });
}

export const keyList = (r: GroupKeys) => [r.base_ref, r.partition_name, r.queue_name, r.priority_rule_name];

export const groupKeys = (r: GroupKeys): GroupKeys => ({
  base_ref: r.base_ref,
  partition_name: r.partition_name,
  queue_name: r.queue_name,
  priority_rule_name: r.priority_rule_name,
});

/**
 * The usual grouping: one group per (base_ref, partition_name, queue_name,
 * priority_rule_name), its buckets made by `toBucket`.
 */
export function groupRowsByKeys<R extends BucketRow & GroupKeys, B extends { start: string }>(options: {
  rows: readonly R[];
  width: number;
  toBucket: (row: R, bounds: { start: string; end: string }) => B;
  order?: (a: B, b: B) => number;
}) {
  return groupRows({
    ...options,
    keysOf: keyList,
    makeGroup: (r: R, stats: B[]) => ({ ...groupKeys(r), stats }),
  });
}
