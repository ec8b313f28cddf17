import { z } from 'zod';

/** Path parameters shared by every v1 endpoint. */
export const ownerSchema = z
  .string()
  .min(1)
  .max(40)
  .regex(/^[a-zA-Z0-9-]+$/, 'letters, digits and hyphens only')
  .describe('Repository owner (user or organization login)');

export const repositoryNameSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\w\-.]+$/, 'letters, digits, "_", "-" and "." only')
  .describe('Repository name');

export const repoParamsSchema = z.object({ owner: ownerSchema, repository: repositoryNameSchema });
export type RepoParams = z.infer<typeof repoParamsSchema>;

const rfc3339 = z.iso.datetime({ offset: true });
const bareDate = z.iso.date();

const EARLIEST_DATE_TIME_MS = Date.parse('1970-01-01T00:00:00Z');
const END_OF_DATE_TIMES_MS = Date.parse('9999-01-01T00:00:00Z');

/**
 * Date-time query value: RFC 3339 with an offset, or a bare date meaning midnight UTC.
 * Parses to a Date; anything else is a 422.
 */
export const dateTimeQuerySchema = z
  .union([rfc3339, bareDate])
  .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value))
  .refine((d) => !Number.isNaN(d.getTime()), 'not a valid date-time')
  // RFC 3339 allows years PostgreSQL cannot store (0000; 9999-12-31 with a negative offset is
  // year 10000 in UTC), and the statistics reach a window or retention period before and a
  // bucket after: bounded well inside, with room for both, instead of a database error (a 500).
  .refine(
    (d) => d.getTime() >= EARLIEST_DATE_TIME_MS && d.getTime() < END_OF_DATE_TIMES_MS,
    'must be from 1970-01-01T00:00:00Z to 9998-12-31T23:59:59Z',
  )
  .describe('RFC 3339 date-time with an offset, or a date (midnight UTC)');

/** Date-times in responses: always UTC with `Z`. */
export const dateTimeSchema = z.iso.datetime({ offset: true }).describe('RFC 3339 date-time, UTC');

export const uuidSchema = z.uuid();

/** Values one repeated query key may carry: every value becomes a term of a query. */
export const MAX_REPEATED_VALUES = 100;

/**
 * A query parameter that may be repeated (`?a=1&a=2`): the HTTP layer gives a string for
 * one value and an array for several; both become an array.
 */
export function repeatedQuery<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) => (v === undefined || Array.isArray(v) ? v : [v]),
    z.array(item).max(MAX_REPEATED_VALUES, `at most ${MAX_REPEATED_VALUES} values`),
  );
}

/** Integers arrive in query strings as text. */
export function integerQuery(min: number, maxExclusive: number) {
  return z.coerce.number().int().min(min).lt(maxExclusive);
}

/**
 * Text that PostgreSQL can store: no NUL character (text and jsonb refuse it) and no
 * unpaired surrogate (jsonb refuses its escape). Anything else is a 422, not a 500.
 */
export function storableText(schema: z.ZodString = z.string()) {
  return schema.refine((s) => !s.includes('\u0000') && s.isWellFormed(), {
    message: 'must not contain NUL characters or unpaired surrogates',
  });
}
