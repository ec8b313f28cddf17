import { z } from 'zod';
import { checkStateSchema } from '../../../shared/schemas/event-parts.schema.ts';

// Check states are the event log's, defined once in shared/.
export { checkStateSchema };
export type CheckState = z.infer<typeof checkStateSchema>;

export const checkRunFactSchema = z.object({ name: z.string(), state: checkStateSchema });
export type CheckRunFact = z.infer<typeof checkRunFactSchema>;

/**
 * Everything the conditions language can read about a pull request (or about the draft PR of
 * a batch under test), gathered by the shell so evaluation stays pure. `checkRuns` is in the
 * order the runs were reported: when a name repeats, the last run wins (a re-run replaces it).
 */
export const pullRequestFactsSchema = z.object({
  number: z.int(),
  base: z.string(),
  head: z.string(),
  author: z.string(),
  labels: z.array(z.string()),
  title: z.string(),
  body: z.string(),
  draft: z.boolean(),
  files: z.array(z.string()),
  checkRuns: z.array(checkRunFactSchema),
  approvedReviewsBy: z.array(z.string()),
  changesRequestedReviewsBy: z.array(z.string()),
});
export type PullRequestFacts = z.infer<typeof pullRequestFactsSchema>;
