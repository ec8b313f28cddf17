/**
 * Joins the parts of a composite key (base, partition, …). The ASCII unit separator: git refuses
 * control characters in ref names, and unlike NUL it can be stored in PostgreSQL's jsonb, where
 * some of these keys end up (gauges).
 */
export const KEY_SEPARATOR = '\u001f';
