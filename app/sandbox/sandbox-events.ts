import type { Commit } from './commit-graph.ts';
import type {
  Account,
  CheckRun,
  CheckSuite,
  CommitStatus,
  Installation,
  IssueComment,
  Label,
  PullRequest,
  Repository,
  Review,
} from './entities.ts';

/*
 * What happened in the simulated GitHub, in the order it happened. Listeners run synchronously,
 * right after the change, so a webhook renders the state as of that moment (a later change
 * must not leak into an earlier delivery).
 */

export type PullRequestAction =
  | 'opened'
  | 'edited'
  | 'closed'
  | 'reopened'
  | 'synchronize'
  | 'labeled'
  | 'unlabeled'
  | 'ready_for_review'
  | 'converted_to_draft';

export type SandboxEvent =
  | {
      type: 'push';
      repo: Repository;
      branch: string;
      /** ZERO_SHA when the branch was created. */
      before: string;
      /** ZERO_SHA when the branch was deleted. */
      after: string;
      forced: boolean;
      /** New commits, oldest first. */
      commits: Commit[];
      sender: Account;
    }
  | { type: 'branch_created'; repo: Repository; branch: string; sender: Account }
  | { type: 'branch_deleted'; repo: Repository; branch: string; sender: Account }
  | {
      type: 'pull_request';
      action: PullRequestAction;
      repo: Repository;
      pull: PullRequest;
      sender: Account;
      label?: Label;
      /** synchronize: the head before and after. */
      before?: string;
      after?: string;
      /** edited: the previous values. */
      changes?: { title?: string; body?: string; base?: { ref: string; sha: string } };
    }
  | { type: 'pull_request_review'; repo: Repository; pull: PullRequest; review: Review; sender: Account }
  | {
      type: 'issue_comment';
      action: 'created' | 'edited';
      repo: Repository;
      pull: PullRequest;
      comment: IssueComment;
      sender: Account;
      previousBody?: string;
    }
  | { type: 'check_run'; action: 'created' | 'completed'; repo: Repository; run: CheckRun; sender: Account }
  | { type: 'check_suite'; action: 'completed'; repo: Repository; suite: CheckSuite; sender: Account }
  | { type: 'status'; repo: Repository; status: CommitStatus; sender: Account }
  | {
      type: 'installation';
      action: 'created';
      installation: Installation;
      repos: Repository[];
      sender: Account;
    };

export type SandboxListener = (event: SandboxEvent) => void;
