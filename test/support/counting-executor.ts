import type { Effect } from '../../app/queue/effects.ts';
import type { QueueInput } from '../../app/queue/inputs.ts';

/**
 * Stands in for GitHub behind the outbox worker's `execute`: answers each effect the way a
 * healthy GitHub would (test branches made, merges done) and counts every execution, so a test
 * can tell whether an effect ran once, twice or never.
 */
export class CountingExecutor {
  /** Executions per `repositoryId key` (failed ones included). */
  readonly counts = new Map<string, number>();
  /** `repositoryId key`, in the order executions started. */
  readonly order: string[] = [];

  constructor(
    private readonly options: {
      /** Throw this instead of answering (the nth execution of the key, from 1). */
      fail?: (effect: Effect, nth: number) => Error | null;
      /** Time each execution takes, so that concurrent workers overlap. */
      delayMs?: number;
    } = {},
  ) {}

  readonly execute = async (repositoryId: string, effect: Effect): Promise<QueueInput[]> => {
    const name = `${repositoryId} ${effect.key}`;
    const nth = (this.counts.get(name) ?? 0) + 1;
    this.counts.set(name, nth);
    this.order.push(name);
    if (this.options.delayMs) await new Promise((r) => setTimeout(r, this.options.delayMs));
    const failure = this.options.fail?.(effect, nth) ?? null;
    if (failure !== null) throw failure;
    return answer(effect);
  };

  /** How often an effect of a repository was executed. */
  count(repositoryId: string, key: string): number {
    return this.counts.get(`${repositoryId} ${key}`) ?? 0;
  }

  /** `repositoryId key` of the effects executed more than once. */
  repeated(): string[] {
    return [...this.counts].filter(([, n]) => n > 1).map(([key]) => key);
  }
}

function answer(effect: Effect): QueueInput[] {
  switch (effect.type) {
    case 'prepare_test_branch':
    case 'update_pr_in_place':
      return [
        {
          type: 'test_branch_prepared',
          batchId: effect.batchId,
          attempt: effect.attempt,
          sha: `tested-${effect.batchId}-${effect.attempt}`,
          draftPullRequest: effect.type === 'prepare_test_branch' ? 900 : null,
        },
      ];
    case 'merge_pr':
      return [{ type: 'merge_completed', number: effect.number, sha: `merged-${effect.number}` }];
    default:
      return [];
  }
}
