import type { RepositoryClient } from '../client/client.ts';

/** The reads a group of deliveries may share: answers that depend only on their arguments. */
const sharedReads = [
  'getRepository',
  'getBranchSha',
  'getPullRequest',
  'listPullRequestFiles',
  'listReviews',
  'listChecks',
  'listPullRequestsForCommit',
  'getPermission',
  'getFileText',
] as const satisfies readonly (keyof RepositoryClient)[];

/**
 * A client whose reads are asked of GitHub once while it lives: the deliveries of one group
 * (inbox/delivery-processor.ts), translated side by side, share what they read. Every one of them
 * arrived before the group was claimed, so one answer is as current for all as separate ones
 * asked at the same moment would be. Writes go straight through; a failed read is not kept.
 */
export function shareReads(client: RepositoryClient): RepositoryClient {
  const answers = new Map<string, Promise<unknown>>();
  const shared: Partial<Record<keyof RepositoryClient, unknown>> = {};
  for (const name of sharedReads) {
    const read = client[name] as (...args: unknown[]) => Promise<unknown>;
    shared[name] = (...args: unknown[]) => {
      const key = `${name} ${JSON.stringify(args)}`;
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = read.apply(client, args);
        answers.set(key, answer);
        answer.catch(() => {
          if (answers.get(key) === answer) answers.delete(key);
        });
      }
      return answer;
    };
  }
  return Object.assign(Object.create(client) as RepositoryClient, shared);
}
