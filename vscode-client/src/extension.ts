/**
 * Fourfold in VS Code: starts the language server, adds palette commands, the results panel and the
 * status bar item, and keeps the server in step with settings, the Voyage key and workspace trust.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { RESULTS_VIEW_ID, ResultsPanel } from './panel';
import { ServerManager } from './server';
import { affectsServer } from './settings';
import { StatusBar } from './statusBar';

let server: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Fourfold');
  const status = new StatusBar();
  const panel = new ResultsPanel(context.extensionUri);
  server = new ServerManager(context, output, status);
  const manager = server;
  context.subscriptions.push(
    output,
    status,
    panel,
    manager,
    vscode.window.registerWebviewViewProvider(RESULTS_VIEW_ID, panel),
    ...registerCommands({ context, server: manager, panel, status, output }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('fourfold.server.command')) {
        await manager.restart();
      } else if (affectsServer((section) => event.affectsConfiguration(section))) {
        await manager.pushSettings();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => manager.restart()),
  );
  await manager.start();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
}
