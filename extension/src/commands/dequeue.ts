import * as vscode from 'vscode';
import { commandIds } from '../ids.ts';
import { dequeueConfirmation } from '../queue/dequeue-text.ts';
import { PullRequestNode } from '../queue/nodes/pull-request-node.ts';
import { type CommandContext, refreshAll, showProblem } from './command-context.ts';

export const DEQUEUE_CONFIRM = 'Dequeue';

/**
 * Dequeue pull request (write access): asks the server what it would stop (dequeue-impact),
 * says so in a modal confirmation, then dequeues. Resolves true once the server has done it.
 */
export function register(ctx: CommandContext): vscode.Disposable {
  const dequeue = async (arg?: unknown): Promise<boolean> => {
    if (!(arg instanceof PullRequestNode)) return false;
    const { number, title } = arg.pullRequest;
    const impact = await ctx.session.run((client, r) => client.dequeueImpact(r.owner, r.name, number));
    if (!impact.ok) {
      void showProblem(impact.problem, () => dequeue(arg));
      return false;
    }
    const choice = await vscode.window.showWarningMessage(
      dequeueConfirmation(number, title, impact.value),
      { modal: true },
      DEQUEUE_CONFIRM,
    );
    if (choice !== DEQUEUE_CONFIRM) return false;
    const done = await ctx.session.run((client, r) => client.dequeue(r.owner, r.name, number));
    if (!done.ok) {
      await refreshAll(ctx);
      void showProblem(done.problem, () => dequeue(arg));
      return false;
    }
    void vscode.window.showInformationMessage(`#${number} removed from the merge queue`);
    await refreshAll(ctx);
    return true;
  };
  return vscode.commands.registerCommand(commandIds.dequeuePullRequest, dequeue);
}
