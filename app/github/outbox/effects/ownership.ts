import { isTestBranchName } from '../../../queue/ids.ts';
import type { PullRequestInfo } from '../../client/client.ts';

/*
 * What the app may destroy: only what it made. A number or a branch name in an effect was
 * right when the engine decided, but GitHub may have moved on since (a rolled-back code host
 * gave a lost draft's number to a person's pull request, which the app then closed). So every
 * destructive effect checks the object first and leaves anything that is not the app's alone.
 */

/** Who the app is on GitHub: what its installation token creates carries this author. */
export interface AppIdentity {
  /** `<app slug>[bot]`. */
  botLogin: string;
}

export function appIdentityOf(appSlug: string): AppIdentity {
  return { botLogin: `${appSlug}[bot]` };
}

/** Where a warning about an object left alone goes (a pino logger fits). */
export interface OwnershipLog {
  warn(details: object, message: string): void;
}

/** What a destructive effect needs to tell the app's objects from others'. */
export interface Ownership {
  /** Unknown: no pull request counts as the app's, so none is closed. */
  identity?: AppIdentity | undefined;
  log?: OwnershipLog | undefined;
}

/** Where the merges of a test branch are made before it moves (`-` keeps it out of the branch's ref namespace). */
export function workBranchOf(branch: string): string {
  return `${branch}-work`;
}

/** A test branch the engine names, or its work branch: the only branches the app deletes or force-moves. */
export function isOwnBranch(branch: string): boolean {
  const base = branch.endsWith('-work') ? branch.slice(0, -'-work'.length) : branch;
  return isTestBranchName(base);
}

/** The app's draft pull request for `branch`: opened by the app's bot from that test branch. */
export function isOwnDraft(
  pull: PullRequestInfo,
  identity: AppIdentity | undefined,
  branch: string,
): boolean {
  return (
    identity !== undefined &&
    pull.author.type === 'Bot' &&
    pull.author.login.toLowerCase() === identity.botLogin.toLowerCase() &&
    pull.head === branch &&
    isOwnBranch(branch)
  );
}
