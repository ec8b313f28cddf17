import type { BaseContent, PullRequestTruth } from './ci-model.ts';

/**
 * The simulated base branch as the ordered list of what merged into it. Version k is the base
 * after k merges, so a run can be tested on an older base (a batch built on the commit it was
 * created on) by its version. A merge that breaks the base (a bad pull request, or the second
 * side of a conflict) is counted and reverted at once, so that the simulation goes on and every
 * policy is judged on the same, green, base.
 */
export class BaseHistory {
  private readonly position = new Map<number, number>();
  private merges = 0;
  /** Merges that would have broken the base: bad pull requests and completed conflicts. */
  readonly breaks: { number: number; cause: 'bad' | 'conflict'; at: number }[] = [];

  /** The current version (number of merges that stayed). */
  get version(): number {
    return this.merges;
  }

  has(number: number): boolean {
    return this.position.has(number);
  }

  /** Merges at `at`; returns false when it broke the base (and was reverted). */
  merge(pr: PullRequestTruth, at: number): boolean {
    if (this.position.has(pr.number)) return true;
    const cause = pr.bad ? 'bad' : pr.conflictsWith.some((n) => this.position.has(n)) ? 'conflict' : null;
    if (cause !== null) {
      this.breaks.push({ number: pr.number, cause, at });
      return false;
    }
    this.position.set(pr.number, this.merges++);
    return true;
  }

  /** The base as of version `version` (clamped to now). */
  at(version: number): BaseContent {
    const limit = Math.min(version, this.merges);
    return {
      has: (number) => {
        const index = this.position.get(number);
        return index !== undefined && index < limit;
      },
      broken: false,
    };
  }
}
