import * as vscode from 'vscode';
import { commandIds } from '../ids.ts';
import { type CommandContext, refreshAll } from './command-context.ts';

export function register(ctx: CommandContext): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand(commandIds.refresh, () => refreshAll(ctx)),
    vscode.commands.registerCommand(commandIds.loadMoreEvents, () => ctx.eventLog.loadMore()),
  );
}
