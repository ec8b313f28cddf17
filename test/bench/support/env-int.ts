/**
 * A whole-number setting of a benchmark from the environment (`1_000_000` allowed), or
 * `fallback` when unset; anything else is an error, not a silent default.
 */
export function envInt(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}`);
  return value;
}
