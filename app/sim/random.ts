/**
 * Seeded randomness for the simulator and the sandbox (the engine itself never draws). Two
 * tools:
 *
 * - `createRandom(seed)`: a stream (sfc32) for generating things in order (a workload);
 * - `hashToUnit(seed, ...parts)`: a stateless draw keyed by what it decides (a run's outcome,
 *   a pair's conflict), so the answer does not depend on the order questions are asked in —
 *   two policies asking about the same run, or the sandbox asking twice, get the same answer.
 *
 * Same seed ⇒ same numbers, on every platform (32-bit integer arithmetic only).
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** true with probability p. */
  chance(p: number): boolean;
  /** Exponential with the given mean (e.g. the gap between Poisson arrivals). */
  exponential(mean: number): number;
  /** Standard normal (Box–Muller). */
  normal(): number;
  /** Lognormal with the given median and σ of the underlying normal. */
  lognormal(median: number, sigma: number): number;
  /** Zipf rank in [0, n): rank k with weight 1/(k+1)^s. */
  zipf(n: number, s: number): number;
  /** An independent stream derived from this one's seed and a label. */
  fork(label: string): Random;
}

export function createRandom(seed: number): Random {
  return fromState(seed >>> 0);
}

function fromState(seed: number): Random {
  // sfc32, seeded through SplitMix32 so that nearby seeds give unrelated streams.
  const mix = splitMix(seed);
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  const nextUint = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) nextUint();
  const zipfTables = new Map<string, number[]>();
  const random: Random = {
    next: () => nextUint() / 4_294_967_296,
    int: (n) => Math.floor(random.next() * n),
    chance: (p) => random.next() < p,
    exponential: (mean) => -mean * Math.log(1 - random.next()),
    normal: () => {
      const u = 1 - random.next();
      const v = random.next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    lognormal: (median, sigma) => median * Math.exp(sigma * random.normal()),
    zipf: (n, s) => {
      const key = `${n}:${s}`;
      let cumulative = zipfTables.get(key);
      if (cumulative === undefined) {
        cumulative = computeZipfCumulative(n, s);
        zipfTables.set(key, cumulative);
      }
      const u = random.next();
      const rank = cumulative.findIndex((c) => u < c);
      return rank < 0 ? n - 1 : rank;
    },
    fork: (label) => fromState(hashParts(seed, [label])),
  };
  return random;
}

/** Cumulative Zipf probabilities of ranks 0..n-1 (the last one is 1). */
export function computeZipfCumulative(n: number, s: number): number[] {
  const weights = Array.from({ length: n }, (_, k) => 1 / (k + 1) ** s);
  const total = weights.reduce((sum, w) => sum + w, 0);
  let running = 0;
  return weights.map((w) => {
    running += w / total;
    return running;
  });
}

/** A uniform draw in [0, 1) fixed by the seed and the parts (stateless, order-independent). */
export function hashToUnit(seed: number, ...parts: (string | number)[]): number {
  return hashParts(seed, parts) / 4_294_967_296;
}

/** A standard normal draw fixed by the seed and the parts. */
export function hashToNormal(seed: number, ...parts: (string | number)[]): number {
  const u = 1 - hashToUnit(seed, ...parts, 'u');
  const v = hashToUnit(seed, ...parts, 'v');
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function hashParts(seed: number, parts: (string | number)[]): number {
  // FNV-1a over the parts' text, then a SplitMix32 finalizer for avalanche.
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (const part of parts) {
    const text = typeof part === 'number' ? `#${part}` : `$${part}`;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    h = Math.imul(h ^ 0x1f, 0x01000193) >>> 0;
  }
  return splitMix(h)();
}

function splitMix(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}
