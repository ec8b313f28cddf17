import * as vscode from 'vscode';
import { ApiError } from '../../../shared/client/api-client.ts';
import type { MergeQueuePullRequest } from '../../../shared/schemas/merge-queue-pull.schema.ts';
import { EventNode } from '../event-log/nodes/event-node.ts';
import { commandIds } from '../ids.ts';
import { etaText, ordinal } from '../queue/place-text.ts';
import { type CommandContext, refreshAll, showProblem } from './command-context.ts';
import { pullRequestArgument } from './pick-pull-request.ts';

/** What the server said back, in words: back in the queue (where, when), or why it cannot be. */
export type RequeueResult =
  | { ok: true; view: MergeQueuePullRequest; text: string }
  | { ok: false; text: string }
  | null;

/** The pull request of a leave in the Event Log, a tree node or a number, else asked for. */
async function target(arg: unknown): Promise<number | null> {
  if (arg instanceof EventNode && arg.event.pull_request !== null) return arg.event.pull_request;
  const given = pullRequestArgument(arg);
  if (given) return given.number;
  const typed = await vscode.window.showInputBox({
    title: 'Requeue pull request',
    prompt: 'Number of the pull request to queue again (it enters as "@trainyard requeue" would)',
    placeHolder: '123',
    validateInput: (v) => (/^[1-9]\d{0,9}$/.test(v.trim()) ? null : 'A pull request number, e.g. 123'),
  });
  return typed ? Number(typed.trim()) : null;
}

/**
 * Requeue pull request (write access): asks the server to queue it again, then says where it
 * is and when it should merge, or why the server refused (queued already, not known open, no
 * queue rule accepts it).
 */
export function register(ctx: CommandContext): vscode.Disposable {
  const requeue = async (arg?: unknown): Promise<RequeueResult> => {
    const number = await target(arg);
    if (number === null) return null;
    const outcome = await ctx.session.run((client, r) =>
      client.requeue(r.owner, r.name, number).then(
        (view) => ({ ok: true as const, view }),
        (error: unknown) => {
          // The server's own words for a refusal of this pull request; other failures are problems.
          const refused =
            error instanceof ApiError &&
            (error.kind === 'conflict' ||
              error.kind === 'invalid' ||
              (error.kind === 'not_found' && /pull request #/.test(error.message)));
          if (refused) return { ok: false as const, detail: error.message };
          throw error;
        },
      ),
    );
    if (!outcome.ok) {
      void showProblem(outcome.problem, () => requeue(arg));
      return null;
    }
    const answer = outcome.value;
    if (!answer.ok) {
      const text = `#${number} was not requeued: ${answer.detail}`;
      void vscode.window.showWarningMessage(text);
      return { ok: false, text };
    }
    const { view } = answer;
    const eta = etaText({ eta: view.estimated_time_of_merge, etaP90: view.estimated_time_of_merge_p90 });
    const text = `#${number} is back in the merge queue: ${ordinal(view.position + 1)} (queue rule ${view.queue_rule_name}) · ${eta}`;
    void vscode.window.showInformationMessage(text);
    await refreshAll(ctx);
    return { ok: true, view, text };
  };
  return vscode.commands.registerCommand(commandIds.requeuePullRequest, requeue);
}
