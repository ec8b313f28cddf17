import * as vscode from 'vscode';
import type { MergeQueueStatus } from '../../../shared/schemas/merge-queue.schema.ts';
import { commandIds } from '../ids.ts';
import { absoluteTime } from '../time.ts';
import { type CommandContext, refreshAll, showProblem } from './command-context.ts';

export const PAUSE_PROMPT = 'Why pause the queue?';

/** Who set a pause, when the server says (a newer server may add it to the pause record). */
function pausedBy(pause: object): string | null {
  const loose = pause as Record<string, unknown>;
  for (const key of ['paused_by', 'updated_by', 'created_by']) {
    const v = loose[key];
    if (typeof v === 'string' && v) return v;
    if (v && typeof v === 'object' && typeof (v as { login?: unknown }).login === 'string')
      return (v as { login: string }).login;
  }
  return null;
}

/** What pausing does now, and the current pause (who set it, when known), in the prompt's words. */
export function pausePrompt(status: MergeQueueStatus | null, setBy: string | null = null): string {
  if (status?.pause) {
    const by = pausedBy(status.pause) ?? setBy;
    return `Already paused${by ? ` by ${by}` : ''} since ${absoluteTime(status.pause.paused_at)}: "${status.pause.reason}". A new reason replaces it. ${PAUSE_PROMPT}`;
  }
  const running = status?.batches.length ?? 0;
  const effect =
    running > 0
      ? `Pausing cancels the checks of the ${running === 1 ? 'running batch' : `${running} running batches`} and merges nothing until unpaused.`
      : 'Pausing merges nothing until unpaused.';
  return `${effect} ${PAUSE_PROMPT}`;
}

/** The API's rule (1–255 characters after trimming), checked before anything is sent. */
export function validatePauseReason(text: string): string | undefined {
  const length = text.trim().length;
  if (length === 0) return 'A reason is required (1 to 255 characters).';
  if (length > 255) return `At most 255 characters: this reason has ${length}.`;
  return undefined;
}

/** Pause queue: asks for a reason; resolves true once the server has paused the queue. */
export function register(ctx: CommandContext): vscode.Disposable {
  /** Who set the current pause: the newest pause event's actor (the pause record does not say). */
  const setBy = async (): Promise<string | null> => {
    if (ctx.queue.snapshot.kind !== 'ok' || !ctx.queue.snapshot.status.pause) return null;
    const outcome = await ctx.session.run((client, r) =>
      client.logs(r.owner, r.name, { event_type: ['queue.pause.create', 'queue.pause.update'], per_page: 1 }),
    );
    const e = outcome.ok ? outcome.value.page.events[0] : undefined;
    if (e?.type === 'queue.pause.create') return e.metadata.created_by.name;
    if (e?.type === 'queue.pause.update') return e.metadata.updated_by.name;
    return null;
  };

  const pause = async (arg?: unknown): Promise<boolean> => {
    const reason =
      typeof arg === 'string'
        ? arg
        : await vscode.window.showInputBox({
            title: 'Pause the merge queue',
            prompt: pausePrompt(
              ctx.queue.snapshot.kind === 'ok' ? ctx.queue.snapshot.status : null,
              await setBy(),
            ),
            value: ctx.queue.snapshot.kind === 'ok' ? ctx.queue.snapshot.status.pause?.reason : undefined,
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
