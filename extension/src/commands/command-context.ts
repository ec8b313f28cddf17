import * as vscode from 'vscode';
import type { ApiSession, Problem } from '../api-session.ts';
import type { CredentialStore } from '../credentials.ts';
import type { EventLogModel } from '../event-log/event-log-model.ts';
import { commandIds } from '../ids.ts';
import type { QueueModel } from '../queue/queue-model.ts';

export interface CommandContext {
  session: ApiSession;
  credentials: CredentialStore;
  queue: QueueModel;
  eventLog: EventLogModel;
}

/** Shows a problem in words, with the action that can fix it and a retry. */
export async function showProblem(problem: Problem, retry: () => unknown): Promise<void> {
  const actions = ['Retry'];
  if (problem.kind === 'forbidden' || problem.kind === 'signedOut') actions.push('Set API key');
  if (problem.kind === 'noRepository' || problem.kind === 'unknownRepository')
    actions.push('Select repository');
  const choice = await vscode.window.showErrorMessage(problem.message, ...actions);
  if (choice === 'Retry') await retry();
  else if (choice === 'Set API key') await vscode.commands.executeCommand(commandIds.setApiKey);
  else if (choice === 'Select repository') await vscode.commands.executeCommand(commandIds.selectRepository);
}

/** After a write: the queue and the event log both show its effect. */
export async function refreshAll(ctx: CommandContext): Promise<void> {
  await Promise.all([ctx.queue.refresh(), ctx.eventLog.reload()]);
}
