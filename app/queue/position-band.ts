/**
 * A waiting pull request's position as its check run shows it: exact among the first ten of its
 * lane, then by bands. Each merge moves everyone behind it up by one, so exact positions deep in
 * a lane republished every check run of the lane at every merge: a hundred GitHub writes per
 * merge with a hundred waiting (GitHub's secondary rate limits cap content-creating requests),
 * and the engine's costliest work at depth. With bands, a merge changes about a dozen titles.
 * The exact position stays in the status API.
 */
const BANDS: readonly (readonly [number, number])[] = [
  [11, 25],
  [26, 50],
  [51, 100],
];

export function describeQueuePosition(position: number): string {
  if (position <= 10) return String(position);
  const band = BANDS.find(([from, to]) => position >= from && position <= to);
  return band === undefined ? `over ${BANDS[BANDS.length - 1]![1]}` : `${band[0]}–${band[1]}`;
}
