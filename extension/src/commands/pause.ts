import * as vscode from 'vscode';
import { commandIds } from '../ids.ts';
import { type CommandContext, refreshAll, showProblem } from './command-context.ts';

export const PAUSE_PROMPT = 'Why pause the queue?';

/** The API's rule (1–255 characters after trimming), checked before anything is sent. */
export function validatePauseReason(text: string): string | undefined {
  const length = text.trim().length;
  if (length === 0) return 'A reason is required (1 to 255 characters).';
  if (length > 255) return `At most 255 characters: this reason has ${length}.`;
  return undefined;
}

/** Pause queue: asks for a reason; resolves true once the server has paused the queue. */
export function register(ctx: CommandContext): vscode.Disposable {
  const pause = async (arg?: unknown): Promise<boolean> => {
    const reason =
      typeof arg === 'string'
        ? arg
        : await vscode.window.showInputBox({
            title: 'Pause the merge queue',
            prompt: PAUSE_PROMPT,
            placeHolder: 'e.g. deploy freeze until 14:00',
            validateInput: validatePauseReason,
            ignoreFocusOut: true,
          });
    if (reason === undefined) return false;
    const invalid = validatePauseReason(reason);
    if (invalid) {
      void vscode.window.showErrorMessage(`Not paused: ${invalid}`);
      return false;
    }
    const outcome = await ctx.session.run((client, repo) =>
      client.pause(repo.owner, repo.name, reason.trim()),
    );
    if (!outcome.ok) {
      void showProblem(outcome.problem, () => pause(reason));
      return false;
    }
    void vscode.window.showInformationMessage(`Queue paused: ${outcome.value.reason}`);
    await refreshAll(ctx);
    return true;
  };
  return vscode.commands.registerCommand(commandIds.pause, pause);
}
