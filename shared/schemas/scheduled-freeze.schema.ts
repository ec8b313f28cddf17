import { z } from 'zod';
import { repoParamsSchema, storableText, uuidSchema } from './common.schema.ts';

/*
 * Scheduled freezes, Mergify's v1 shapes (docs/api.md, "Scheduled freezes"): `start` and `end`
 * are wall-clock times of the freeze's own `timezone`, without an offset.
 */

const freezeTimePattern = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?$/;

/** A time as a request gives it: wall-clock time of the freeze's time zone, or an instant with an offset. */
const freezeTimeInputSchema = z
  .string()
  .regex(freezeTimePattern, 'expected YYYY-MM-DDTHH:MM:SS (the freeze time zone), or with an offset')
  .describe('Wall-clock time in the freeze time zone (YYYY-MM-DDTHH:MM:SS); with Z or ±HH:MM, that instant');

/** A time as answers give it: wall-clock time of the freeze's time zone, without an offset. */
const freezeTimeSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?$/)
  .describe('Wall-clock time in the freeze time zone, without an offset');

const conditionText = storableText(z.string().trim().min(1).max(1024));
const conditionsSchema = z
  .array(conditionText)
  .max(100)
  .describe('Conditions (strings, as in .github/trainyard.yml), all of which must hold');

const timezoneSchema = storableText(z.string().min(1).max(64)).describe('IANA time zone, e.g. Europe/Paris');
const reasonSchema = storableText(z.string().trim().min(1).max(10_000)).describe('Why merges are frozen');

export const scheduledFreezeSchema = z
  .object({
    id: uuidSchema,
    reason: z.string(),
    start: freezeTimeSchema,
    end: freezeTimeSchema.nullable().describe('null: until deleted'),
    timezone: z.string(),
    matching_conditions: z.array(z.string()).describe('Pull requests it holds (all when empty)'),
    exclude_conditions: z.array(z.string()).describe('Pull requests it lets merge all the same'),
  })
  .describe('A scheduled freeze: pull requests it holds keep testing but do not merge from start to end')
  .meta({ id: 'ScheduledFreeze' });

export type ScheduledFreeze = z.output<typeof scheduledFreezeSchema>;

export const scheduledFreezeListSchema = z
  .object({
    scheduled_freezes: z.array(scheduledFreezeSchema).describe('Current and future freezes, by start'),
  })
  .describe('The scheduled freezes of a repository');

export const createScheduledFreezeSchema = z
  .strictObject({
    reason: reasonSchema,
    start: freezeTimeInputSchema.nullable().optional().describe('null or absent: now'),
    end: freezeTimeInputSchema.nullable().optional().describe('null or absent: until deleted'),
    timezone: timezoneSchema,
    matching_conditions: conditionsSchema.optional().describe('Pull requests it holds; absent or empty: all'),
    exclude_conditions: conditionsSchema.optional().describe('Pull requests it lets merge; absent: none'),
  })
  .describe('A new scheduled freeze');

export const updateScheduledFreezeSchema = z
  .strictObject({
    reason: reasonSchema.optional(),
    start: freezeTimeInputSchema.optional().describe('Refused (400) once the freeze has started'),
    end: freezeTimeInputSchema.nullable().optional().describe('null: until deleted'),
    timezone: timezoneSchema.optional().describe('Start and end keep their wall-clock times in the new zone'),
    matching_conditions: conditionsSchema.optional(),
    exclude_conditions: conditionsSchema.optional(),
  })
  .describe('Changes to a scheduled freeze: the fields given replace the current ones');

export const deleteScheduledFreezeSchema = z
  .strictObject({
    delete_reason: storableText(z.string().trim().max(10_000)).optional().describe('Why it is deleted'),
  })
  .describe('Why the freeze is deleted (optional)');

export const freezeParamsSchema = repoParamsSchema.extend({
  freeze_id: uuidSchema.describe('The id of the scheduled freeze'),
});
