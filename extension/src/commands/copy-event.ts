import * as vscode from 'vscode';
import { EventNode } from '../event-log/nodes/event-node.ts';
import { commandIds } from '../ids.ts';
import type { CommandContext } from './command-context.ts';

/** Copy event as JSON, and Show event as JSON (a read-only JSON editor): the event as the API returned it. */
export function register(_ctx: CommandContext): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand(commandIds.copyEventAsJson, async (arg?: unknown) => {
      if (!(arg instanceof EventNode)) return false;
      await vscode.env.clipboard.writeText(JSON.stringify(arg.event, null, 2));
      void vscode.window.setStatusBarMessage(`Event ${arg.event.id} copied as JSON`, 3000);
      return true;
    }),
    vscode.commands.registerCommand(commandIds.showEventAsJson, async (arg?: unknown) => {
      if (!(arg instanceof EventNode)) return undefined;
      const document = await vscode.workspace.openTextDocument({
        language: 'json',
        content: JSON.stringify(arg.event, null, 2),
      });
      await vscode.window.showTextDocument(document, { preview: true });
      return document;
    }),
  );
}
