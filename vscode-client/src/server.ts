/**
 * Starts, restarts and stops the Fourfold language server, and is the one place that talks to it.
 * A server that cannot start gets one actionable message (with a button to the setting) instead of
 * the language client's generic toasts; settings and the Voyage key reach the server through
 * `initializationOptions` and `workspace/configuration`, filtered by workspace trust.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  type CloseHandlerResult,
  DidChangeConfigurationNotification,
  ErrorAction,
  type ErrorHandlerResult,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  ResponseError,
  RevealOutputChannelOn,
  type ServerOptions,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
} from 'vscode-languageclient/node';
import type { IndexStatus } from './protocol';
import { SERVER_COMMANDS, STATUS_NOTIFICATION } from './protocol';
import { describe, isExecutable, resolveServerCommand, type ServerCommand } from './serverCommand';
import { serverSettings } from './settings';
import type { StatusBar } from './statusBar';
import { progressPercent } from './statusText';

const CLIENT_ID = 'fourfold';
const SECRET_KEY = 'fourfold.voyageApiKey';
// A server that crashes this often within the window is left stopped instead of restarted forever.
const MAX_CRASHES = 3;
const CRASH_WINDOW_MS = 3 * 60_000;

/** The language client without its own error toasts: this extension shows one actionable message instead. */
class QuietClient extends LanguageClient {
  error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

interface PythonApi {
  environments?: { getActiveEnvironmentPath?: (resource?: vscode.Uri) => { path?: string } | undefined };
  settings?: { getExecutionDetails?: (resource?: vscode.Uri) => { execCommand?: string[] } | undefined };
}

/** The interpreter selected in the Python extension, if it is installed. */
async function pythonInterpreter(): Promise<string[] | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>('ms-python.python');
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const active = api.environments?.getActiveEnvironmentPath?.(resource)?.path;
    return active ? [active] : api.settings?.getExecutionDetails?.(resource)?.execCommand;
  } catch {
    return undefined;
  }
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private running = false;
  private stopping = false;
  private crashes: number[] = [];
  private problem: string | undefined = undefined;
  private readonly shownNotes = new Set<string>();
  private readonly shownErrors = new Set<string>();
  private readonly progressTitles = new Map<string | number, string>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
    private readonly status: StatusBar,
  ) {}

  /** Why the server is not running, or undefined when it is (or is starting). */
  get stoppedBecause(): string | undefined {
    return this.problem;
  }

  async start(): Promise<void> {
    this.problem = undefined;
    this.status.set({ kind: 'starting' });
    const resolution = resolveServerCommand(this.commandSetting(), {
      pathVariable: process.env.PATH,
      isExecutable,
      pythonInterpreter: await pythonInterpreter(),
    });
    if (!resolution.ok) {
      this.fail(resolution.problem);
      return;
    }
    await this.launch(resolution.server);
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.running = false;
    if (!client) {
      return;
    }
    this.stopping = true;
    try {
      await client.stop(5_000);
    } catch (error) {
      this.output.appendLine(`stopping the server: ${String(error)}`);
    } finally {
      this.stopping = false;
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    this.crashes = [];
    await this.start();
  }

  /** Run one of the server's commands; rejects with a readable message when the server is not running. */
  async request<T>(command: string, argument: object): Promise<T> {
    if (!this.client || !this.running) {
      throw new Error(this.problem ? `the server is not running: ${this.problem}` : 'the server is still starting; try again in a moment');
    }
    return this.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] }) as Promise<T>;
  }

  async indexStatus(): Promise<IndexStatus> {
    return this.request<IndexStatus>(SERVER_COMMANDS.indexStatus, {});
  }

  /** Tell the server its settings changed; it asks for them again through workspace/configuration. */
  async pushSettings(): Promise<void> {
    await this.settingsForServer();
    if (this.client && this.running) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
    }
  }

  async apiKey(): Promise<string | undefined> {
    return this.context.secrets.get(SECRET_KEY);
  }

  async setApiKey(key: string | undefined): Promise<void> {
    if (key) {
      await this.context.secrets.store(SECRET_KEY, key);
    } else {
      await this.context.secrets.delete(SECRET_KEY);
    }
  }

  /** The server command setting; a workspace cannot choose the program to run unless it is trusted. */
  private commandSetting(): unknown {
    const inspected = vscode.workspace.getConfiguration('fourfold').inspect<unknown>('server.command');
    if (vscode.workspace.isTrusted) {
      return vscode.workspace.getConfiguration('fourfold').get('server.command');
    }
    const fromWorkspace = inspected?.workspaceFolderValue ?? inspected?.workspaceValue;
    if (fromWorkspace !== undefined) {
      this.noteOnce('This workspace is not trusted, so its fourfold.server.command is ignored; the user setting or the default is used.');
    }
    return inspected?.globalValue ?? inspected?.defaultValue;
  }

  private async settingsForServer(): Promise<Record<string, unknown>> {
    const config = vscode.workspace.getConfiguration('fourfold');
    const mapped = serverSettings((name) => config.get(name), {
      trusted: vscode.workspace.isTrusted,
      apiKey: await this.apiKey(),
    });
    mapped.notes.forEach((note) => this.noteOnce(note));
    return mapped.settings;
  }

  private noteOnce(note: string): void {
    if (this.shownNotes.has(note)) {
      return;
    }
    this.shownNotes.add(note);
    this.output.appendLine(note);
    void vscode.window.showInformationMessage(`Fourfold: ${note}`);
  }

  private async launch(server: ServerCommand): Promise<void> {
    this.output.appendLine(`starting the server (${server.source}): ${describe(server)}`);
    // No `transport`: with TransportKind.stdio the client appends `--stdio`, which `fourfold serve` rejects.
    const serverOptions: ServerOptions = { command: server.command, args: server.args };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: { fourfold: await this.settingsForServer() },
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (answers instanceof ResponseError) {
              return answers;
            }
            const settings = await this.settingsForServer();
            const values: unknown[] = answers;
            return params.items.map((item, index): unknown => (item.section === 'fourfold' ? settings : values[index]));
          },
        },
      },
      errorHandler: {
        error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue, handled: true }),
        closed: (): CloseHandlerResult => this.closed(),
      },
      initializationFailedHandler: () => false,
    };
    const client = new QuietClient(CLIENT_ID, 'Fourfold', serverOptions, clientOptions);
    this.client = client;
    client.onNotification(STATUS_NOTIFICATION, (status: IndexStatus) => this.showStatus(status));
    try {
      await client.start();
    } catch (error) {
      this.client = undefined;
      this.fail(`"${describe(server)}" exited before it answered (${String(error instanceof Error ? error.message : error).split('\n')[0]}). `
        + 'Is Fourfold installed for that Python? The server\'s own error is in the Fourfold output.');
      return;
    }
    this.running = true;
    this.trackProgress(client);
    try {
      this.showStatus(await this.indexStatus());
    } catch (error) {
      this.output.appendLine(`fourfold.indexStatus failed: ${String(error)}`);
    }
  }

  /** Indexing percentages from `$/progress` go to the status bar instead of a separate progress UI. */
  private trackProgress(client: LanguageClient): void {
    client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      const subscription = client.onProgress(WorkDoneProgress.type, token, (value) => {
        if (value.kind === 'end') {
          this.progressTitles.delete(token);
          subscription.dispose();
          void this.indexStatus().then((status) => this.showStatus(status), () => undefined);
          return;
        }
        if (value.kind === 'begin') {
          this.progressTitles.set(token, value.title);
        }
        const message = [this.progressTitles.get(token), value.message].filter(Boolean).join(': ');
        this.status.set({ kind: 'progress', percent: progressPercent(value) ?? 0, message });
      });
      return null;
    });
  }

  private showStatus(status: IndexStatus): void {
    this.status.set({ kind: 'status', status });
    if (status.state === 'error' && status.last_error && !this.shownErrors.has(status.last_error)) {
      this.shownErrors.add(status.last_error);
      void vscode.window.showErrorMessage(`Fourfold: indexing failed: ${status.last_error}`, 'Show Log')
        .then((choice) => choice && this.output.show(true));
    }
  }

  private closed(): CloseHandlerResult {
    if (this.stopping || !this.running) {
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const now = Date.now();
    this.crashes = [...this.crashes.filter((time) => now - time < CRASH_WINDOW_MS), now];
    if (this.crashes.length < MAX_CRASHES) {
      this.output.appendLine('the server stopped unexpectedly; restarting it');
      return { action: CloseAction.Restart, handled: true };
    }
    this.running = false;
    this.client = undefined;
    this.fail(`the server stopped ${MAX_CRASHES} times in ${CRASH_WINDOW_MS / 60_000} minutes, so it is not restarted again.`);
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  /** Record why the server is not running and say so once, with the ways out. */
  private fail(problem: string): void {
    this.problem = problem;
    this.output.appendLine(`cannot start the server: ${problem}`);
    this.status.set({ kind: 'stopped', problem });
    void vscode.window.showErrorMessage(`Fourfold cannot start its language server: ${problem}`, 'Open Setting', 'Show Log')
      .then((choice) => {
        if (choice === 'Open Setting') {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'fourfold.server.command');
        } else if (choice === 'Show Log') {
          this.output.show(true);
        }
      });
  }

  dispose(): void {
    void this.stop();
  }
}
