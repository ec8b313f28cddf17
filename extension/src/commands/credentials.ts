import * as vscode from 'vscode';
import { commandIds } from '../ids.ts';
import type { CommandContext } from './command-context.ts';

export function validateApiKey(text: string): string | undefined {
  const key = text.trim();
  if (!key) return 'An application key is required';
  if (/\s/.test(key)) return 'A key has no spaces';
  return undefined;
}

/** Set API key (kept in SecretStorage, never in settings), forget it, or sign in with GitHub. */
export function register(ctx: CommandContext): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand(commandIds.setApiKey, async (arg?: unknown) => {
      const key =
        typeof arg === 'string'
          ? arg
          : await vscode.window.showInputBox({
              title: 'Trainyard: application key',
              prompt: 'An application key from `trainyard keys create` (kept in VS Code’s secret storage)',
              placeHolder: 'ty_…',
              password: true,
              ignoreFocusOut: true,
              validateInput: validateApiKey,
            });
      if (key === undefined || validateApiKey(key)) return false;
      await ctx.credentials.setApiKey(key);
      await ctx.queue.refresh();
      return true;
    }),
    vscode.commands.registerCommand(commandIds.clearApiKey, async () => {
      await ctx.credentials.clearApiKey();
      await ctx.queue.refresh();
      return true;
    }),
    vscode.commands.registerCommand(commandIds.signInWithGitHub, async () => {
      const ok = await ctx.credentials.signInWithGitHub();
      if (!ok) void vscode.window.showErrorMessage('GitHub sign-in did not complete.');
      await ctx.queue.refresh();
      return ok;
    }),
  );
}
