import { z } from 'zod';
import { dateTimeSchema, uuidSchema } from './common.schema.ts';
import { actorSchema, freezeAttributesSchema, githubAccountSchema } from './event-parts.schema.ts';

/*
 * Metadata of the events that control the queue: comment commands (`command.*`), the pause
 * (`queue.pause.*`) and scheduled freezes (`scheduled_freeze.*`).
 */

/**
 * `command.queue`, `command.dequeue` and `command.requeue`. Mergify's v1 event log does not show
 * the metadata of `command.requeue`; it is the same command family, so it has the same shape.
 */
export const commandMetadataSchema = z
  .strictObject({
    author: githubAccountSchema.describe('Who wrote the command'),
    comment_id: z.int().describe('GitHub id of the comment holding the command'),
    session_id: uuidSchema.nullable().describe('Queue session the command acted on, or null'),
  })
  .describe('A command written in a pull request comment');

export const pauseCreateMetadataSchema = z
  .strictObject({
    reason: z.string().describe('Why the queue is paused'),
    created_by: actorSchema.describe('Who paused the queue'),
  })
  .describe('The merge queue was paused');

export const pauseDeleteMetadataSchema = z
  .strictObject({ deleted_by: actorSchema.describe('Who unpaused the queue') })
  .describe('The merge queue was unpaused');

export const pauseUpdateMetadataSchema = z
  .strictObject({
    reason: z.string().describe('The new pause reason'),
    updated_by: actorSchema.describe('Who changed the pause'),
  })
  .describe('The reason of the pause was changed');

export const freezeCreateMetadataSchema = z
  .strictObject({
    scheduled_freeze_attributes: freezeAttributesSchema,
    created_by: actorSchema.describe('Who created the freeze'),
    created_at: dateTimeSchema.describe('When the freeze was created'),
  })
  .describe('A scheduled freeze was created');

export const freezeDeleteMetadataSchema = z
  .strictObject({
    scheduled_freeze_attributes: freezeAttributesSchema,
    reason: z.string().describe('Why the freeze was deleted'),
    deleted_by: actorSchema.describe('Who deleted the freeze'),
    deleted_at: dateTimeSchema.describe('When the freeze was deleted'),
  })
  .describe('A scheduled freeze was deleted');

export const freezeUpdateMetadataSchema = z
  .strictObject({
    scheduled_freeze_attributes_before: freezeAttributesSchema.describe('The freeze before the change'),
    scheduled_freeze_attributes_after: freezeAttributesSchema.describe('The freeze after the change'),
    updated_by: actorSchema.describe('Who changed the freeze'),
    updated_at: dateTimeSchema.describe('When the freeze was changed'),
  })
  .describe('A scheduled freeze was changed');
