import * as vscode from 'vscode';
import { eventTypes } from '../../../shared/schemas/event-types.ts';
import { type EventLogFilter, noFilter } from '../event-log/event-log-model.ts';
import { eventKind } from '../event-log/event-sentence.ts';
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

/**
 * The picker's items: grouped by kind, the kinds with events in the log first, and in each kind
 * the types present in the log first (with their count).
 */
export function filterPickItems(
  present: Map<string, number>,
  current: EventLogFilter,
): vscode.QuickPickItem[] {
  const kinds = new Map<string, string[]>();
  for (const type of eventTypes) kinds.set(eventKind(type), [...(kinds.get(eventKind(type)) ?? []), type]);
  const score = (types: string[]) => types.filter((t) => present.has(t)).length;
  const items: vscode.QuickPickItem[] = [];
  for (const [kind, types] of [...kinds].sort((a, b) => score(b[1]) - score(a[1]))) {
    items.push({ label: kind, kind: vscode.QuickPickItemKind.Separator });
    const ordered = [...types].sort((a, b) => Number(present.has(b)) - Number(present.has(a)));
    for (const type of ordered) {
      const n = present.get(type);
      items.push({
        label: type,
        description: n ? `${n} in the log` : undefined,
        picked: current.types.includes(type),
      });
    }
  }
  return items;
}

async function ask(
  current: EventLogFilter,
  present: Map<string, number>,
): Promise<EventLogFilter | undefined> {
  const picked = await vscode.window.showQuickPick(filterPickItems(present, current), {
    title: 'Filter event log (1/2): event types',
    placeHolder: 'Pick event types; none picked shows every type',
    canPickMany: true,
    matchOnDescription: true,
  });
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
      } else {
        const present = new Map<string, number>();
        for (const e of ctx.eventLog.events) present.set(e.type, (present.get(e.type) ?? 0) + 1);
        filter = await ask(ctx.eventLog.filter, present);
      }
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
