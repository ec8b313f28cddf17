/**
 * A waiting pull request's position as its check run shows it: exact among the first ten of its
 * lane, then by bands. Each merge moves everyone behind it up by one, so exact positions deep in
 * a lane would republish every check run of the lane at every merge: one GitHub write per
 * waiting pull request (GitHub's secondary rate limits cap content-creating requests), and the
 * engine's costliest work at depth. With bands, a merge changes only the titles of those who
 * cross into another band (figures in docs/decisions/0016). The exact position stays in the
 * status API. The shell words it (app/github/render/check-run.ts).
 */
const BANDS: readonly (readonly [number, number])[] = [
  [11, 25],
  [26, 50],
  [51, 100],
];

/** Positions `from` to `to` (the same for an exact one); `to` null: beyond the last band. */
export interface PositionBand {
  from: number;
  to: number | null;
}

export function queuePositionBand(position: number): PositionBand {
  if (position <= 10) return { from: position, to: position };
  const band = BANDS.find(([from, to]) => position >= from && position <= to);
  return band === undefined
    ? { from: BANDS[BANDS.length - 1]![1] + 1, to: null }
    : { from: band[0], to: band[1] };
}
