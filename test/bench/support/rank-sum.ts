/**
 * The Mann–Whitney U test (Wilcoxon rank-sum) of two samples, two-sided, with the normal
 * approximation and the correction for ties: whether one sample tends to be larger than the
 * other, without assuming latencies are normally distributed.
 */
export function rankSumTest(a: readonly number[], b: readonly number[]): { u: number; z: number; p: number } {
  const all = [...a.map((v) => ({ v, fromA: true })), ...b.map((v) => ({ v, fromA: false }))].sort(
    (x, y) => x.v - y.v,
  );
  const n = all.length;
  let rankSumA = 0;
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && all[j + 1]!.v === all[i]!.v) j++;
    const rank = (i + j + 2) / 2; // ranks are 1-based; ties share their mean rank
    const t = j - i + 1;
    tieTerm += t ** 3 - t;
    for (let k = i; k <= j; k++) if (all[k]!.fromA) rankSumA += rank;
    i = j + 1;
  }
  const n1 = a.length;
  const n2 = b.length;
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  const z = variance > 0 ? (u - mean) / Math.sqrt(variance) : 0;
  return { u, z, p: 2 * (1 - normalCdf(Math.abs(z))) };
}

/** Φ(x), by the Abramowitz–Stegun 7.1.26 approximation of erf (error < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
