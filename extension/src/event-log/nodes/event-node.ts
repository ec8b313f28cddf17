import * as vscode from 'vscode';
import type { Event, EventOutcome } from '../../../../shared/schemas/event.schema.ts';
import { absoluteTime, relativeTime } from '../../time.ts';
import type { TreeNode } from '../../tree-node.ts';
import { eventSentence } from '../event-sentence.ts';

const outcomeIcons: Record<EventOutcome, vscode.ThemeIcon> = {
  success: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failure: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  pending: new vscode.ThemeIcon('clock', new vscode.ThemeColor('charts.yellow')),
  neutral: new vscode.ThemeIcon('circle-outline'),
};

/** "action.queue.enter" → "queue enter". */
export function eventTitle(type: string): string {
  return type
    .replace(/^action\./, '')
    .replaceAll('.', ' ')
    .replaceAll('_', ' ');
}

/** One event as a sentence, with its time and type; expands to its metadata (raw JSON: inline button). */
export class EventNode implements TreeNode {
  constructor(
    private readonly repository: string,
    readonly event: Event,
  ) {}

  getTreeItem(): vscode.TreeItem {
    const e = this.event;
    const item = new vscode.TreeItem(eventSentence(e), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `${this.repository}/event/${e.id}`;
    item.description = `${relativeTime(e.received_at)} · ${eventTitle(e.type)}`;
    item.tooltip = new vscode.MarkdownString(
      [
        `**${e.type}** (${e.outcome})`,
        `received: ${absoluteTime(e.received_at)}`,
        `trigger: ${e.trigger}`,
        e.pull_request !== null ? `pull request: #${e.pull_request} → ${e.base_ref ?? '?'}` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    item.iconPath = outcomeIcons[e.outcome];
    // The type last: a leave's menu offers Requeue.
    item.contextValue = `event:${e.outcome}:${e.type}`;
    return item;
  }

  getChildren(): TreeNode[] {
    const e = this.event;
    const base = `${this.repository}/event/${e.id}`;
    return [
      new FieldNode(base, 'trigger', e.trigger),
      ...(e.base_ref !== null ? [new FieldNode(base, 'base_ref', e.base_ref)] : []),
      ...Object.entries(e.metadata as Record<string, unknown>).map(([k, v]) => new FieldNode(base, k, v)),
    ];
  }
}

/** One metadata field; objects and arrays expand to their fields. */
export class FieldNode implements TreeNode {
  private readonly id: string;

  constructor(
    parentId: string,
    readonly key: string,
    readonly value: unknown,
  ) {
    this.id = `${parentId}/${key}`;
  }

  private get nested(): boolean {
    return typeof this.value === 'object' && this.value !== null && Object.keys(this.value).length > 0;
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(
      this.key,
      this.nested ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = this.id;
    const v = this.value;
    item.description = this.nested
      ? Array.isArray(v)
        ? `${v.length} items`
        : '{…}'
      : typeof v === 'string'
        ? v
        : JSON.stringify(v);
    item.tooltip = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
    item.contextValue = 'field';
    return item;
  }

  getChildren(): TreeNode[] {
    if (!this.nested) return [];
    return Object.entries(this.value as Record<string, unknown>).map(
      ([k, v]) => new FieldNode(this.id, k, v),
    );
  }
}
