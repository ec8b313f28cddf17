import * as vscode from 'vscode';
import { eventTypes } from '../../../shared/schemas/event-types.ts';
import { type EventLogFilter, noFilter } from '../event-log/event-log-model.ts';
import { EventNode } from '../event-log/nodes/event-node.ts';
import { commandIds } from '../ids.ts';
import type { CommandContext } from './command-context.ts';

function isFilter(value: unknown): value is Partial<EventLogFilter> {
  return typeof value === 'object' && value !== null && ('types' in value || 'pullRequest' in value);
}

export function validatePullRequest(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text.trim());
  return Number.isInteger(n) && n >= 1 && n < 2147483647
    ? undefined
    : 'A pull request number (or empty for all)';
}

async function ask(current: EventLogFilter): Promise<EventLogFilter | undefined> {
  const picked = await vscode.window.showQuickPick(
    eventTypes.map((type) => ({ label: type, picked: current.types.includes(type) })),
    {
      title: 'Filter event log (1/2): event types',
      placeHolder: 'Pick event types; none picked shows every type',
      canPickMany: true,
      matchOnDescription: true,
    },
  );
  if (!picked) return undefined;
  const pr = await vscode.window.showInputBox({
    title: 'Filter event log (2/2): pull request',
    prompt: 'Pull request number; empty for all pull requests',
    value: current.pullRequest === null ? '' : String(current.pullRequest),
    validateInput: validatePullRequest,
  });
  if (pr === undefined) return undefined;
  return { types: picked.map((p) => p.label), pullRequest: pr.trim() ? Number(pr.trim()) : null };
}

/**
 * Filter event log: types and pull request, asked for, or given (a filter object from a script,
 * or an event from the context menu: its type and pull request).
 */
export function register(ctx: CommandContext): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand(commandIds.filterEventLog, async (arg?: unknown) => {
      let filter: EventLogFilter | undefined;
      if (isFilter(arg)) filter = { types: arg.types ?? [], pullRequest: arg.pullRequest ?? null };
      else if (arg instanceof EventNode) {
        filter = { types: [arg.event.type], pullRequest: arg.event.pull_request };
      } else filter = await ask(ctx.eventLog.filter);
      if (!filter) return false;
      await ctx.eventLog.setFilter(filter);
      return true;
    }),
    vscode.commands.registerCommand(commandIds.clearEventLogFilter, async () => {
      await ctx.eventLog.setFilter(noFilter);
      return true;
    }),
  );
}
