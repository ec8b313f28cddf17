import * as vscode from 'vscode';
import type {
  Batch,
  BatchStatusCode,
  QueuedPullRequest,
} from '../../../../shared/schemas/merge-queue.schema.ts';
import { absoluteTime } from '../../time.ts';
import type { TreeNode } from '../../tree-node.ts';
import { type Bisection, type ProbeOutcome, readBisection } from '../bisection.ts';
import { etaText } from '../place-text.ts';
import type { PullRequestPlace } from '../pull-request-place.ts';
import { type BisectionMark, type LoadChecks, PullRequestNode } from './pull-request-node.ts';

const icons: Record<BatchStatusCode, [string, string | undefined]> = {
  waiting_for_batch: ['clock', undefined],
  preparing: ['loading~spin', undefined],
  running: ['sync~spin', 'charts.blue'],
  bisecting: ['git-compare', 'charts.orange'],
  waiting_for_previous_batches: ['debug-stackframe', undefined],
  waiting_for_schedule: ['calendar', undefined],
  frozen: ['lock', 'charts.purple'],
  paused: ['debug-pause', 'charts.yellow'],
  merging: ['git-merge', 'charts.green'],
  merged: ['pass-filled', 'charts.green'],
  failed: ['error', 'charts.red'],
};

/** "checks running" rather than "0/0 checks" while nothing has reported yet. */
function checksText(b: Batch): string {
  const { passed, total } = b.checks_summary;
  if (total === 0) return b.ci_finished_at ? 'no checks' : b.started_at ? 'checks running' : 'not started';
  return `${passed}/${total} checks`;
}

/**
 * A batch. A bisecting batch is labelled failed and shows its probes (sub-batches) as a tree,
 * each pull request once (under the smallest probe holding it), suspects and the culprit marked.
 */
export class BatchNode implements TreeNode {
  readonly id: string;

  constructor(
    readonly batch: Batch,
    parentId: string,
    private readonly places: Map<number, PullRequestPlace> = new Map(),
    private readonly probe: { outcome: ProbeOutcome; shown: number[]; bisection: Bisection } | null = null,
    private readonly loadChecks: LoadChecks | null = null,
  ) {
    this.id = `${parentId}/batch/${batch.id}`;
  }

  getTreeItem(): vscode.TreeItem {
    const b = this.batch;
    const item = new vscode.TreeItem(
      this.probe ? `probe ${b.name}` : b.name,
      vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = this.id;
    const code = b.status.code.replaceAll('_', ' ');
    const prs = b.pull_requests.map((p) => `#${p.number}`).join(', ');
    const eta = etaText({ eta: b.estimated_merge_at, etaP90: null });
    if (this.probe) {
      item.description = `${this.probe.outcome} · ${prs} · ${checksText(b)}`;
    } else if (b.status.code === 'bisecting') {
      const bis = readBisection(b);
      const found =
        bis.culprit !== null
          ? `culprit #${bis.culprit}`
          : `suspects ${bis.suspects.map((n) => `#${n}`).join(', ')}`;
      item.description = `failed · bisecting · ${found}`;
    } else {
      item.description = `${code} · ${checksText(b)} · ${eta}`;
    }
    item.tooltip = new vscode.MarkdownString(
      [
        `**${b.name}** — ${this.probe ? `probe, ${this.probe.outcome}` : b.status.code === 'bisecting' ? 'failed; bisecting to find the pull request that broke it' : code}`,
        `pull requests: ${prs || 'none'}`,
        `checks: ${b.checks_summary.passed} passed of ${b.checks_summary.total} reported or required`,
        b.started_at ? `started: ${absoluteTime(b.started_at)}` : 'not started',
        b.ci_finished_at ? `checks ended: ${absoluteTime(b.ci_finished_at)}` : '',
        b.estimated_ci_finish_at ? `checks should end: ${absoluteTime(b.estimated_ci_finish_at)}` : '',
        b.estimated_merge_at ? `estimated merge: ${absoluteTime(b.estimated_merge_at)}` : '',
        b.checks_timeout_at ? `checks time out: ${absoluteTime(b.checks_timeout_at)}` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    const [icon, color] =
      this.probe?.outcome === 'failed'
        ? icons.failed
        : this.probe?.outcome === 'passed'
          ? icons.merged
          : icons[b.status.code];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.contextValue = `${this.probe ? 'subBatch' : 'batch'}:${b.status.code}`;
    return item;
  }

  private pullRequestNode(pr: QueuedPullRequest, bisection: Bisection | null): PullRequestNode {
    let mark: BisectionMark = null;
    if (bisection) {
      if (bisection.culprit === pr.number) mark = 'culprit';
      else if (bisection.suspects.includes(pr.number))
        mark = bisection.culprit === null ? 'suspect' : 'cleared';
      else mark = 'cleared';
    }
    return new PullRequestNode(
      pr,
      this.id,
      'batch',
      this.places.get(pr.number) ?? null,
      mark,
      this.loadChecks,
    );
  }

  getChildren(): TreeNode[] {
    const b = this.batch;
    if (this.probe) {
      const shown = new Set(this.probe.shown);
      return b.pull_requests
        .filter((p) => shown.has(p.number))
        .map((p) => this.pullRequestNode(p, this.probe!.bisection));
    }
    if (!b.sub_batches?.length) return b.pull_requests.map((p) => this.pullRequestNode(p, null));
    const bisection = readBisection(b);
    const unprobed = new Set(bisection.unprobed);
    return [
      ...bisection.probes.map(
        (probe) => new BatchNode(probe.batch, this.id, this.places, { ...probe, bisection }, this.loadChecks),
      ),
      ...b.pull_requests.filter((p) => unprobed.has(p.number)).map((p) => this.pullRequestNode(p, bisection)),
    ];
  }
}
