/**
 * The known name a misspelt one most likely meant, for "did you mean" hints; undefined when
 * nothing is close enough to be a plausible typo.
 */
export function closestName(input: string, known: readonly string[]): string | undefined {
  const wanted = input.toLowerCase();
  const budget = Math.max(1, Math.floor(wanted.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const distance = editDistance(wanted, name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return bestDistance <= budget ? best : undefined;
}

/** Edit distance counting a swap of two neighbours as one edit (the commonest typo). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i]!;
      const above = rows[i - 1]!;
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
      }
    }
  }
  return rows[a.length]![b.length]!;
}

/** ` (did you mean "x"?)` or nothing, ready to append to a message. */
export function didYouMean(input: string, known: readonly string[]): string {
  const suggestion = closestName(input, known);
  return suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
}
