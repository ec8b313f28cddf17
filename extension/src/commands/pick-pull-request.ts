import * as vscode from 'vscode';
import { PullRequestNode } from '../queue/nodes/pull-request-node.ts';
import { placeLine } from '../queue/place-text.ts';
import { isOnBranch, myPlaces, placesOf } from '../queue/pull-request-place.ts';
import type { QueueModel } from '../queue/queue-model.ts';

/** A pull request a command acts on: its number, and its title when known. */
export interface PickedPullRequest {
  number: number;
  title: string | null;
}

/** A tree node or a number given as the command's argument, else null. */
export function pullRequestArgument(arg: unknown): PickedPullRequest | null {
  if (arg instanceof PullRequestNode) return { number: arg.pullRequest.number, title: arg.pullRequest.title };
  if (typeof arg === 'number' && Number.isInteger(arg) && arg > 0) return { number: arg, title: null };
  return null;
}

/**
 * Asks which queued pull request: the current branch's first (marked), then mine, then the
 * others by place. Undefined when none is queued or the pick is cancelled.
 */
export async function pickQueuedPullRequest(
  queue: QueueModel,
  placeHolder: string,
): Promise<PickedPullRequest | undefined> {
  const snapshot = queue.snapshot;
  if (snapshot.kind !== 'ok') return undefined;
  const places = placesOf(snapshot.status);
  const mine = myPlaces(places, queue.me);
  const others = [...places.values()]
    .filter((p) => !mine.includes(p))
    .sort((a, b) => a.position - b.position);
  const items = [...mine, ...others].map((p) => ({
    label: `#${p.pr.number} ${p.pr.title}`,
    description: `${isOnBranch(p, queue.me) ? '$(git-branch) current branch · ' : mine.includes(p) ? 'mine · ' : ''}${placeLine(p)}`,
    detail: p.reason ?? undefined,
    picked: false,
    number: p.pr.number,
    title: p.pr.title,
  }));
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`No pull request is queued in ${snapshot.repository}.`);
    return undefined;
  }
  const chosen = await vscode.window.showQuickPick(items, { placeHolder, matchOnDescription: true });
  return chosen ? { number: chosen.number, title: chosen.title } : undefined;
}
