const MAX_SHOWN_STRING = 40;

/**
 * How a value found in a configuration file is shown in an error message: short, and in the
 * words of a YAML author ("a list", "a mapping"), not JavaScript's ("array", "object").
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > MAX_SHOWN_STRING ? `${value.slice(0, MAX_SHOWN_STRING)}…` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (typeof value === 'object') {
    return Object.keys(value).length === 0 ? 'an empty mapping' : 'a mapping';
  }
  return `a ${typeof value}`;
}

/** A mapping as YAML gives it: a plain object, not an array, a Date or a Map. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
