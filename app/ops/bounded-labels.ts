/** The label value that stands for every value past the bound. */
export const OTHER_LABEL = '_other';

/**
 * Keeps a label's values bounded: the first `limit` distinct values seen keep their own value,
 * every later one is reported as `_other`. A time series costs Prometheus memory for as long
 * as it is kept, so an unbounded label (repositories, installations, routes a caller made up)
 * must not grow one per value.
 */
export class BoundedLabels {
  private readonly seen = new Set<string>();

  constructor(private readonly limit: number) {}

  labelOf(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return OTHER_LABEL;
    this.seen.add(value);
    return value;
  }
}
