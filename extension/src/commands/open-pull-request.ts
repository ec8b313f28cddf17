import * as vscode from 'vscode';
import { commandIds } from '../ids.ts';
import { PullRequestNode } from '../queue/nodes/pull-request-node.ts';
import type { CommandContext } from './command-context.ts';

/** Open pull request: a tree node's URL (or a URL given as argument) in the browser. */
export function register(_ctx: CommandContext): vscode.Disposable {
  return vscode.commands.registerCommand(commandIds.openPullRequest, async (arg?: unknown) => {
    const url = arg instanceof PullRequestNode ? arg.pullRequest.url : typeof arg === 'string' ? arg : null;
    if (!url) return false;
    return vscode.env.openExternal(vscode.Uri.parse(url));
  });
}
