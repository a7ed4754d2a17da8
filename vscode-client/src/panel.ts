/**
 * The "Fourfold" panel view that shows search results. It keeps the last content so the view can be
 * closed and reopened, and turns a click (or Enter) on a result into an editor opened at that range.
 */
import * as vscode from 'vscode';
import { makeNonce, type PanelContent, renderPage } from './render';

export const RESULTS_VIEW_ID = 'fourfold.results';

interface OpenMessage {
  type: 'open';
  uri: string;
  range: [number, number, number, number];
}

function isOpenMessage(message: unknown): message is OpenMessage {
  const candidate = message as Partial<OpenMessage> | null;
  return candidate?.type === 'open' && typeof candidate.uri === 'string' && Array.isArray(candidate.range)
    && candidate.range.length === 4 && candidate.range.every((n) => Number.isInteger(n) && n >= 0);
}

/** Open `uri` with `range` selected; the cursor sits at the start so the definition's first line is in view. */
export async function openLocation(uri: vscode.Uri, range: vscode.Range): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(document, { preview: true });
  editor.selection = new vscode.Selection(range.end, range.start);
  editor.revealRange(range.with(range.start, range.start), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

export class ResultsPanel implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private content: PanelContent = { kind: 'welcome' };
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly extensionUri: vscode.Uri) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    this.disposables.push(view.webview.onDidReceiveMessage((message: unknown) => this.receive(message)));
    view.onDidDispose(() => { this.view = undefined; });
    this.render();
  }

  /** Show `content`; with `reveal` the panel is opened and focused (for keyboard navigation). */
  async show(content: PanelContent, reveal = true): Promise<void> {
    this.content = content;
    if (reveal) {
      await vscode.commands.executeCommand(`${RESULTS_VIEW_ID}.focus`);
    }
    this.render();
  }

  private render(): void {
    if (!this.view) {
      return;
    }
    const webview = this.view.webview;
    const media = (name: string): string => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', name)).toString();
    webview.html = renderPage(this.content, {
      nonce: makeNonce(),
      cspSource: webview.cspSource,
      scriptUri: media('panel.js'),
      styleUri: media('panel.css'),
    });
  }

  private async receive(message: unknown): Promise<void> {
    if (!isOpenMessage(message)) {
      return;
    }
    const [startLine, startCharacter, endLine, endCharacter] = message.range;
    try {
      await openLocation(vscode.Uri.parse(message.uri), new vscode.Range(startLine, startCharacter, endLine, endCharacter));
    } catch (error) {
      void vscode.window.showErrorMessage(`Fourfold: cannot open ${message.uri}: ${String(error)}`);
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}
