import * as vscode from 'vscode';
import { commandIds } from '../ids.ts';
import { formatRepository } from '../repository.ts';
import { type CommandContext, refreshAll, showProblem } from './command-context.ts';

export const UNPAUSE_CONFIRM = 'Unpause';

/** Unpause queue, after a confirmation; resolves true once the server has unpaused it. */
export function register(ctx: CommandContext): vscode.Disposable {
  const unpause = async (): Promise<boolean> => {
    const repo = await ctx.session.repository();
    const name = repo ? formatRepository(repo) : 'this repository';
    const choice = await vscode.window.showWarningMessage(
      `Unpause the merge queue of ${name}? Batches start again at once.`,
      { modal: true },
      UNPAUSE_CONFIRM,
    );
    if (choice !== UNPAUSE_CONFIRM) return false;
    const outcome = await ctx.session.run((client, r) => client.unpause(r.owner, r.name));
    if (!outcome.ok) {
      const problem =
        outcome.problem.kind === 'unknownRepository' && /not paused/i.test(outcome.problem.message)
          ? { kind: 'error' as const, message: `The queue of ${name} is not paused.` }
          : outcome.problem;
      await refreshAll(ctx);
      void showProblem(problem, unpause);
      return false;
    }
    void vscode.window.showInformationMessage(`Queue of ${name} unpaused`);
    await refreshAll(ctx);
    return true;
  };
  return vscode.commands.registerCommand(commandIds.unpause, unpause);
}
