import type * as vscode from 'vscode';

/** Owns what it registers and disposes all of it, newest first. */
export class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  protected _register<T extends vscode.Disposable>(value: T): T {
    if (this.disposed) value.dispose();
    else this.owned.push(value);
    return value;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.owned.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // one failing disposal does not keep the others alive
      }
    }
  }
}
