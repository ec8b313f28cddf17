import * as vscode from 'vscode';
import { Disposable } from '../lifecycle.ts';

/** The scheme of the read-only "why is it waiting" documents. */
export const WHY_SCHEME = 'trainyard-why';

/**
 * Read-only Markdown documents explaining why a pull request waits: one per repository and pull
 * request, its text replaced when asked again (an editor showing it updates).
 */
export class WhyDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;

  constructor() {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(WHY_SCHEME, this));
  }

  static uri(repository: string, number: number): vscode.Uri {
    return vscode.Uri.from({ scheme: WHY_SCHEME, path: `/${repository}/pull-${number}.md` });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? 'Run "Why is this pull request waiting?" again to see it.';
  }

  /** Sets the document's text and shows it beside the current editor. */
  async show(uri: vscode.Uri, text: string): Promise<vscode.TextEditor> {
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Active });
  }
}
