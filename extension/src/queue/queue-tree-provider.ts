import * as vscode from 'vscode';
import { Disposable } from '../lifecycle.ts';
import type { TreeNode } from '../tree-node.ts';
import { CheckNode, NoteNode } from './nodes/check-node.ts';
import { MineNode } from './nodes/mine-node.ts';
import { PartitionNode } from './nodes/partition-node.ts';
import type { LoadChecks } from './nodes/pull-request-node.ts';
import { PauseNode, RepositoryNode } from './nodes/repository-node.ts';
import { WaitingNode } from './nodes/waiting-node.ts';
import { myPlaces, placesOf } from './pull-request-place.ts';
import type { QueueModel } from './queue-model.ts';

/**
 * Merge Queue view: my pull requests, repository, pause state, each partition's batches (sub-batches and pull
 * requests below), then the waiting pull requests. Empty on a problem: viewsWelcome explains it.
 */
export class QueueTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = this._register(new vscode.EventEmitter<TreeNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: QueueModel) {
    super();
    this._register(model.onDidChange(() => this.changed.fire(undefined)));
  }

  /** A pull request's check runs on its tested commit, from the per-PR view. */
  private readonly loadChecks: LoadChecks = async (parentId, number) => {
    if (typeof this.model.pullRequest !== 'function') return [];
    const outcome = await this.model.pullRequest(number);
    if (!outcome.ok) return [new NoteNode(`${parentId}/note`, outcome.problem.message)];
    const test = outcome.value.mergeability_check;
    if (!test) return [new NoteNode(`${parentId}/note`, 'Not tested yet: waiting for its batch')];
    if (!test.checks.length)
      return [new NoteNode(`${parentId}/note`, `Testing (${test.ci_state}): no check has reported yet`)];
    return test.checks.map((c) => new CheckNode(parentId, c));
  };

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return node.getTreeItem();
  }

  getChildren(node?: TreeNode): TreeNode[] | Promise<TreeNode[]> {
    if (node) return node.getChildren();
    const snapshot = this.model.snapshot;
    if (snapshot.kind !== 'ok') return [];
    const { repository, status } = snapshot;
    const byId = new Map(status.batches.map((b) => [b.id, b]));
    const places = placesOf(status);
    const me = this.model.me ?? { login: null, branch: null };
    const partitions = Object.entries(status.scope_queues).map(
      ([scope, ids]) =>
        new PartitionNode(
          repository,
          scope,
          ids.flatMap((id) => byId.get(id) ?? []),
          places,
          this.loadChecks,
        ),
    );
    return [
      new MineNode(repository, myPlaces(places, me), me, this.loadChecks),
      new RepositoryNode(repository, status, snapshot.fetchedAt),
      new PauseNode(repository, status.pause),
      ...partitions,
      new WaitingNode(repository, status.waiting_pull_requests, places, this.loadChecks),
    ];
  }
}
