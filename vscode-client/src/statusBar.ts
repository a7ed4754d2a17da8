/**
 * The status bar item: a percentage while the server indexes, file and symbol counts once ready, a
 * warning colour when the server is not running. Clicking it shows the index status.
 */
import * as vscode from 'vscode';
import type { IndexStatus } from './protocol';
import { type ServerState, statusView } from './statusText';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private last: IndexStatus | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem('fourfold.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'Fourfold';
    this.item.command = 'fourfold.ui.showIndexStatus';
    this.set({ kind: 'starting' });
    this.item.show();
  }

  /** The semantic backend of the last index status, for the panel's empty state. */
  get backend(): string | null {
    return this.last?.backend ?? null;
  }

  set(state: ServerState): void {
    if (state.kind === 'status') {
      this.last = state.status;
    }
    const view = statusView(state);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
