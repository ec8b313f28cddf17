import * as vscode from 'vscode';
import { commandIds, settings } from '../ids.ts';
import { detectRepositories, formatRepository, parseRepository } from '../repository.ts';
import type { CommandContext } from './command-context.ts';

const ENTER = 'Enter owner/name…';
const DETECT = 'Detect from the workspace’s git remote';

async function save(value: string): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length
    ? vscode.ConfigurationTarget.Workspace
    : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration(settings.section).update(settings.repository, value, target);
}

/** Select repository: a detected remote, or owner/name typed in; saved in the setting. */
export function register(ctx: CommandContext): vscode.Disposable {
  return vscode.commands.registerCommand(commandIds.selectRepository, async (arg?: unknown) => {
    let choice: string | undefined = typeof arg === 'string' ? arg : undefined;
    if (choice === undefined) {
      const detected = (await detectRepositories()).map(formatRepository);
      const picked = await vscode.window.showQuickPick(
        [
          ...detected.map((label) => ({ label, description: 'git remote' })),
          { label: ENTER },
          { label: DETECT, description: 'clears the trainyard.repository setting' },
        ],
        { title: 'Trainyard: select repository', placeHolder: 'The repository whose merge queue to show' },
      );
      if (!picked) return false;
      choice = picked.label;
      if (choice === ENTER) {
        choice = await vscode.window.showInputBox({
          title: 'Trainyard: repository',
          prompt: 'owner/name',
          placeHolder: 'acme/app',
          validateInput: (v) => (parseRepository(v) ? undefined : 'Expected owner/name, e.g. acme/app'),
        });
        if (choice === undefined) return false;
      }
    }
    if (choice === DETECT || choice === '') await save('');
    else {
      const ref = parseRepository(choice);
      if (!ref) {
        void vscode.window.showErrorMessage(`Not a repository name: ${choice} (expected owner/name)`);
        return false;
      }
      await save(formatRepository(ref));
    }
    await Promise.all([ctx.queue.refresh(), ctx.eventLog.reload()]);
    return true;
  });
}
