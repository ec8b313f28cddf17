import * as vscode from 'vscode';
import type { MergeQueueStatus } from '../../shared/schemas/merge-queue.schema.ts';
import type { ApiSession } from './api-session.ts';
import { commandIds } from './ids.ts';
import { Disposable } from './lifecycle.ts';
import { myPlaces, placesOf } from './queue/pull-request-place.ts';
import type { QueueModel } from './queue/queue-model.ts';
import { type Transition, transitions } from './queue/transitions.ts';

/** A button of a notice: a link opened outside VS Code, or one of our commands with its argument. */
export type NoticeButton =
  | { label: string; url: string }
  | { label: string; command: string; argument: number };

/** A message shown to the user, with its buttons; kept for tests. */
export interface Notice {
  level: 'info' | 'warning';
  text: string;
  buttons: NoticeButton[];
}

/** Tells me when my pull request merges or is removed (why, and the failing run), or the queue pauses. */
export class Notifier extends Disposable {
  private before: MergeQueueStatus | null = null;
  private repository: string | null = null;
  private mine = new Set<number>();
  readonly shown: Notice[] = [];

  constructor(
    model: QueueModel,
    private readonly session: ApiSession,
  ) {
    super();
    this._register(
      model.onDidChange((s) => {
        if (s.kind !== 'ok') return;
        // Another repository is not a change of this one: nothing left, nothing paused.
        if (s.repository !== this.repository) {
          this.repository = s.repository;
          this.before = null;
          this.mine.clear();
        }
        const found = transitions(this.before, s.status, this.mine);
        this.before = s.status;
        // Mine once seen stays mine until it leaves: a login lookup that fails must not hide a merge.
        for (const p of myPlaces(placesOf(s.status), model.me)) this.mine.add(p.pr.number);
        for (const t of found) void this.announce(t);
      }),
    );
  }

  private async announce(t: Transition): Promise<void> {
    if (t.kind === 'paused') {
      return this.show({ level: 'warning', text: `Merge queue paused: ${t.reason}`, buttons: [] });
    }
    this.mine.delete(t.number);
    const outcome = await this.session.run((client, repo) =>
      client.logs(repo.owner, repo.name, {
        pull_request: t.number,
        event_type: ['action.queue.leave'],
        per_page: 1,
      }),
    );
    const leave = outcome.ok ? outcome.value.page.events[0] : undefined;
    const meta = leave?.type === 'action.queue.leave' ? leave.metadata : null;
    const open = { label: 'Open pull request', url: t.url };
    if (!meta || meta.merged) {
      return this.show({
        level: 'info',
        text: meta ? `#${t.number} merged: ${t.title}` : `#${t.number} left the merge queue: ${t.title}`,
        buttons: [open],
      });
    }
    const failing = meta.checks.find(
      (c) => c.url && ['failure', 'error', 'timed_out', 'cancelled', 'action_required'].includes(c.state),
    );
    return this.show({
      level: 'warning',
      text: `#${t.number} was removed from the merge queue: ${meta.reason}`,
      buttons: [
        ...(failing?.url ? [{ label: `Open failing run (${failing.name})`, url: failing.url }] : []),
        // Back in the queue once it is fixed (or at once, for a flake), as `@trainyard requeue`.
        { label: 'Requeue', command: commandIds.requeuePullRequest, argument: t.number },
        open,
      ],
    });
  }

  private async show(notice: Notice): Promise<void> {
    this.shown.push(notice);
    const show =
      notice.level === 'info' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    const picked = await show(notice.text, ...notice.buttons.map((b) => b.label));
    const button = notice.buttons.find((b) => b.label === picked);
    if (button) await this.press(button);
  }

  /** What a button does when pressed: opens its link, or runs its command. */
  async press(button: NoticeButton): Promise<unknown> {
    if ('url' in button) return vscode.env.openExternal(vscode.Uri.parse(button.url));
    return vscode.commands.executeCommand(button.command, button.argument);
  }
}
