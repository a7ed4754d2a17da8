/**
 * The palette commands (`fourfold.ui.*`, distinct from the server's `fourfold.*` ids, which the
 * language client registers itself): search with recent queries, search the word at the cursor,
 * impact and callers of a symbol, reindex, index status, the Voyage key, restart and the log.
 */
import * as vscode from 'vscode';
import type { ResultsPanel } from './panel';
import { SERVER_COMMANDS, type SearchAnswer, type SearchRequest } from './protocol';
import { remember } from './recent';
import type { ServerManager } from './server';
import type { StatusBar } from './statusBar';

const RECENT_KEY = 'fourfold.recentQueries';
// A selection longer than this is not a query someone meant to type.
const MAX_SELECTION_QUERY = 200;

export interface Parts {
  context: vscode.ExtensionContext;
  server: ServerManager;
  panel: ResultsPanel;
  status: StatusBar;
  output: vscode.OutputChannel;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Run a search and show it in the panel; the query joins the recent list. */
export async function search(parts: Parts, request: SearchRequest): Promise<SearchAnswer | undefined> {
  const { context, server, panel, status } = parts;
  const recent = context.workspaceState.get<string[]>(RECENT_KEY, []);
  await context.workspaceState.update(RECENT_KEY, remember(recent, request.query));
  await panel.show({ kind: 'searching', query: request.query });
  const limit = vscode.workspace.getConfiguration('fourfold').get<number>('results.limit');
  try {
    const answer = await server.request<SearchAnswer>(SERVER_COMMANDS.search, { limit, ...request });
    await panel.show({ kind: 'answer', answer, backend: status.backend });
    return answer;
  } catch (error) {
    await panel.show({ kind: 'failed', query: request.query, message: errorText(error) });
    return undefined;
  }
}

/** Ask for a query in a box that offers recent queries (filtered by what is typed). */
async function askQuery(context: vscode.ExtensionContext): Promise<string | undefined> {
  const recent = context.workspaceState.get<string[]>(RECENT_KEY, []);
  const pick = vscode.window.createQuickPick();
  pick.title = 'Fourfold: Search';
  pick.placeholder = 'where is parseConfig defined · who calls load_settings · "connection refused" · how does retry work';
  const recentItems = (filter: string): vscode.QuickPickItem[] => recent
    .filter((query) => query !== filter && query.toLowerCase().includes(filter.toLowerCase()))
    .map((query) => ({ label: query, description: 'recent' }));
  pick.items = recentItems('');
  pick.onDidChangeValue((value) => {
    pick.items = value.trim() ? [{ label: value, description: 'search' }, ...recentItems(value)] : recentItems('');
  });
  return new Promise((resolve) => {
    pick.onDidAccept(() => {
      resolve((pick.selectedItems[0]?.label ?? pick.value).trim() || undefined);
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}

/** The selection (if any) or the word under the cursor. */
function wordAtCursor(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return undefined;
  }
  const selected = editor.document.getText(editor.selection).trim();
  if (selected && !selected.includes('\n') && selected.length <= MAX_SELECTION_QUERY) {
    return selected;
  }
  const range = editor.document.getWordRangeAtPosition(editor.selection.active);
  return range ? editor.document.getText(range) : undefined;
}

function searchAtCursor(parts: Parts, intent?: string): () => Promise<void> {
  return async () => {
    const word = wordAtCursor();
    if (!word) {
      void vscode.window.showInformationMessage('Fourfold: put the cursor on a name or select some text first.');
      return;
    }
    await search(parts, intent ? { query: word, intent } : { query: word });
  };
}

async function reindex(parts: Parts, full?: boolean): Promise<void> {
  const choice = full !== undefined ? { full } : await vscode.window.showQuickPick(
    [
      { label: 'Changed files', description: 'check every file, re-index what changed', full: false },
      { label: 'Everything', description: 'throw the index away and build it again', full: true },
    ],
    { title: 'Fourfold: Reindex Workspace' },
  );
  if (!choice) {
    return;
  }
  try {
    await parts.server.request(SERVER_COMMANDS.reindex, { full: choice.full });
  } catch (error) {
    void vscode.window.showErrorMessage(`Fourfold: reindex failed: ${errorText(error)}`);
  }
}

async function showIndexStatus(parts: Parts): Promise<void> {
  const problem = parts.server.stoppedBecause;
  if (problem) {
    const choice = await vscode.window.showErrorMessage(`Fourfold is not running: ${problem}`, 'Open Setting', 'Restart');
    if (choice === 'Open Setting') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'fourfold.server.command');
    } else if (choice === 'Restart') {
      await parts.server.restart();
    }
    return;
  }
  try {
    const status = await parts.server.indexStatus();
    parts.status.set({ kind: 'status', status });
    const state = status.ready ? 'ready' : status.state === 'error' ? 'failed' : `indexing (${Math.round(status.progress * 100)}%)`;
    const semantic = status.backend && status.backend !== 'none' ? `${status.embedded} of ${status.chunks} chunks embedded with ${status.backend}` : 'semantic search off';
    const error = status.last_error ? ` Last error: ${status.last_error}` : '';
    const choice = await vscode.window.showInformationMessage(
      `Fourfold index ${state}: ${status.files} files, ${status.symbols} symbols, ${semantic}.${error}`, 'Reindex', 'Show Log');
    if (choice === 'Reindex') {
      await reindex(parts);
    } else if (choice === 'Show Log') {
      parts.output.show(true);
    }
  } catch (error) {
    void vscode.window.showErrorMessage(`Fourfold: ${errorText(error)}`);
  }
}

function usesVoyage(): boolean {
  return vscode.workspace.getConfiguration('fourfold').get('semantic.backend') === 'voyage';
}

async function setVoyageApiKey(parts: Parts): Promise<void> {
  const key = await vscode.window.showInputBox({
    title: 'Fourfold: Set Voyage API Key',
    prompt: 'Stored in VS Code\'s secret storage and passed to the Fourfold server; never written to settings.json.',
    password: true,
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : 'Paste a key from dash.voyageai.com'),
  });
  if (!key) {
    return;
  }
  await parts.server.setApiKey(key.trim());
  const voyage = usesVoyage();
  void vscode.window.showInformationMessage(voyage
    ? 'Fourfold: Voyage API key saved; restarting the server to use it.'
    : 'Fourfold: Voyage API key saved. It is used when fourfold.semantic.backend is "voyage".');
  if (voyage) {
    await parts.server.restart();
  }
}

async function clearVoyageApiKey(parts: Parts): Promise<void> {
  await parts.server.setApiKey(undefined);
  void vscode.window.showInformationMessage('Fourfold: Voyage API key removed from secret storage.');
  if (usesVoyage()) {
    await parts.server.restart();
  }
}

export function registerCommands(parts: Parts): vscode.Disposable[] {
  const commands: Record<string, (...args: unknown[]) => unknown> = {
    'fourfold.ui.search': async (query?: unknown) => {
      const text = typeof query === 'string' && query.trim() ? query.trim() : await askQuery(parts.context);
      return text ? search(parts, { query: text }) : undefined;
    },
    'fourfold.ui.searchWordAtCursor': searchAtCursor(parts),
    'fourfold.ui.showImpact': searchAtCursor(parts, 'impact_analysis'),
    'fourfold.ui.findCallers': searchAtCursor(parts, 'find_references'),
    'fourfold.ui.reindex': (full?: unknown) => reindex(parts, typeof full === 'boolean' ? full : undefined),
    'fourfold.ui.showIndexStatus': () => showIndexStatus(parts),
    'fourfold.ui.setVoyageApiKey': () => setVoyageApiKey(parts),
    'fourfold.ui.clearVoyageApiKey': () => clearVoyageApiKey(parts),
    'fourfold.ui.restartServer': () => parts.server.restart(),
    'fourfold.ui.showOutput': () => parts.output.show(true),
  };
  return Object.entries(commands).map(([id, handler]) => vscode.commands.registerCommand(id, handler));
}
