import * as vscode from 'vscode';
import { ApiSession } from './api-session.ts';
import type { CommandContext } from './commands/command-context.ts';
import * as copyEvent from './commands/copy-event.ts';
import * as credentialCommands from './commands/credentials.ts';
import * as dequeue from './commands/dequeue.ts';
import * as filterLog from './commands/filter-log.ts';
import * as openPullRequest from './commands/open-pull-request.ts';
import * as pause from './commands/pause.ts';
import * as refresh from './commands/refresh.ts';
import * as requeue from './commands/requeue.ts';
import * as selectRepository from './commands/select-repository.ts';
import * as unpause from './commands/unpause.ts';
import * as whyWaiting from './commands/why-waiting.ts';
import { CredentialStore } from './credentials.ts';
import { EventLogModel } from './event-log/event-log-model.ts';
import { EventLogTreeProvider } from './event-log/event-log-tree-provider.ts';
import { FreezeTreeProvider } from './freezes/freeze-tree-provider.ts';
import { commandIds, openContainerCommand, viewIds } from './ids.ts';
import { Notifier } from './notifier.ts';
import { QueueModel } from './queue/queue-model.ts';
import { QueueTreeProvider } from './queue/queue-tree-provider.ts';
import { StatisticsPanel } from './statistics/statistics-panel.ts';
import { QueueStatusBar } from './status-bar.ts';
import type { TreeNode } from './tree-node.ts';

/** What activate() returns: the extension's parts, for tests and other extensions. */
export interface TrainyardApi {
  credentials: CredentialStore;
  session: ApiSession;
  queue: QueueModel;
  queueTree: QueueTreeProvider;
  queueView: vscode.TreeView<TreeNode>;
  eventLog: EventLogModel;
  eventLogTree: EventLogTreeProvider;
  eventLogView: vscode.TreeView<TreeNode>;
  freezesTree: FreezeTreeProvider;
  freezesView: vscode.TreeView<TreeNode>;
  statusBar: QueueStatusBar;
  notifier: Notifier;
  /** The Statistics panel, when open. */
  statistics(): StatisticsPanel | undefined;
}

/** Constructs and registers; no I/O beyond the first refresh. */
export function activate(context: vscode.ExtensionContext): TrainyardApi {
  const own = <T extends vscode.Disposable>(d: T): T => {
    context.subscriptions.push(d);
    return d;
  };
  const credentials = own(new CredentialStore(context.secrets));
  const session = own(new ApiSession(credentials));
  const queue = own(new QueueModel(session));
  const eventLog = own(new EventLogModel(session));
  const queueTree = own(new QueueTreeProvider(queue));
  const eventLogTree = own(new EventLogTreeProvider(eventLog));
  const queueView = own(vscode.window.createTreeView(viewIds.mergeQueue, { treeDataProvider: queueTree }));
  const eventLogView = own(
    vscode.window.createTreeView(viewIds.eventLog, { treeDataProvider: eventLogTree, showCollapseAll: true }),
  );
  const freezesTree = own(new FreezeTreeProvider(session, queue));
  const freezesView = own(vscode.window.createTreeView(viewIds.freezes, { treeDataProvider: freezesTree }));
  const statusBar = own(new QueueStatusBar(queue));
  const notifier = own(new Notifier(queue, session));

  // A problem empties the tree and shows its viewsWelcome entry (words and actions: Retry, Sign in…).
  // VS Code shows welcome content only while the view has no message, so the problem's own words
  // (which server, which repository, what it said) go in the view's description instead.
  own(
    queue.onDidChange((s) => {
      queueView.description = s.kind === 'problem' ? s.problem.message : undefined;
    }),
  );
  own(
    eventLog.onDidChange(() => {
      const f = eventLog.filter;
      const parts = [
        f.types.length ? `types: ${f.types.join(', ')}` : null,
        f.pullRequest !== null ? `pull request #${f.pullRequest}` : null,
      ].filter(Boolean);
      eventLogView.description = eventLog.problem?.message;
      eventLogView.message =
        !eventLog.problem && parts.length ? `Filtered by ${parts.join('; ')}` : undefined;
    }),
  );
  // Poll only while a view is visible.
  own(queueView.onDidChangeVisibility((e) => queue.setVisible(viewIds.mergeQueue, e.visible)));
  own(eventLogView.onDidChangeVisibility((e) => eventLog.setVisible(e.visible)));
  if (queueView.visible) queue.setVisible(viewIds.mergeQueue, true);
  if (eventLogView.visible) eventLog.setVisible(true);

  const ctx: CommandContext = { session, credentials, queue, eventLog };
  for (const command of [
    pause,
    unpause,
    refresh,
    selectRepository,
    filterLog,
    openPullRequest,
    copyEvent,
    credentialCommands,
    dequeue,
    whyWaiting,
    requeue,
  ]) {
    own(command.register(ctx));
  }
  own(
    vscode.commands.registerCommand(commandIds.showStatistics, (days?: unknown) =>
      StatisticsPanel.show(context.extensionUri, session, days === 1 || days === 30 ? days : 7),
    ),
  );
  own(new vscode.Disposable(() => StatisticsPanel.current?.panel.dispose()));
  own(
    vscode.commands.registerCommand(commandIds.showView, () =>
      vscode.commands.executeCommand(openContainerCommand),
    ),
  );

  // The status bar shows the state even while the views are hidden: the model polls from the
  // first fetch on (a visible view has already asked for it).
  if (!queue.polling) void queue.refresh();
  return {
    credentials,
    session,
    queue,
    queueTree,
    queueView,
    eventLog,
    eventLogTree,
    eventLogView,
    freezesTree,
    freezesView,
    statusBar,
    notifier,
    statistics: () => StatisticsPanel.current,
  };
}

export function deactivate(): void {}
