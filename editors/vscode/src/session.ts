// What the commands share: the running client, the projects it serves, the
// output channel, and helpers to call the server's efmesh.* commands.
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CancellationToken,
  ExecuteCommandRequest,
  LanguageClient,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import { projectOf } from './server';

/** The argument object every efmesh.* server command takes. */
export interface CommandArgs {
  uri?: string; // a file of the project: picks the project, and the model
  root?: string; // the project root, when there is no file
  model?: string;
  column?: string;
  env?: string;
  confirm?: boolean; // apply to prod
}

/** efmesh.plan's result (the CLI's --json plan plus a summary). */
export interface PlanResult {
  env: string;
  hasChanges: boolean;
  summary: string;
  models: Array<{
    name: string;
    change: string;
    build: boolean;
    intervals?: number;
    reusedFrom?: string;
    cause?: string[];
    kind?: string;
    fingerprint?: string;
    physicalTable?: string;
    backfill?: Array<[string, string]>;
    explain?: string[];
  }>;
}

/** efmesh.apply's result. */
export interface ApplyResult {
  env: string;
  applied: boolean;
  planId?: string;
  built: string[];
  promoted: string[];
  summary: string;
}

/** efmesh.lineage's result: edges point from a source to what reads it. */
export interface LineageGraph {
  root: string;
  nodes: Array<{ id: string; model: string; column?: string; type?: string; kind?: string; file?: string }>;
  edges: Array<{ from: string; to: string }>;
}

export const PROD = 'prod';
export const ENV_NAME = /^[a-z][a-z0-9_]*$/;

export class Session {
  client: LanguageClient | undefined;
  roots: vscode.Uri[] = [];
  binary: string | undefined;
  private progressSeq = 0;

  constructor(readonly output: vscode.OutputChannel) {}

  environment(): string {
    const env = vscode.workspace.getConfiguration('efmesh').get<string>('environment', 'dev').trim();
    return ENV_NAME.test(env) ? env : 'dev';
  }

  /** running returns the client, or says why there is none. */
  running(): LanguageClient {
    if (!this.client || !this.client.isRunning()) {
      throw new Error(
        this.roots.length === 0
          ? `no ${'efmesh.yaml'} in this workspace: open the folder of an efmesh project`
          : 'the efmesh language server is not running (see the "efmesh language server" output)',
      );
    }
    return this.client;
  }

  /** serverCommands lists the commands the server offers. */
  serverCommands(): string[] {
    return this.client?.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  }

  /**
   * target says which project (and file) a command is about: the given
   * file, else the active editor's file when it is in a project, else the
   * only project, else the one the user picks.
   */
  async target(uri?: vscode.Uri): Promise<{ args: CommandArgs; root: vscode.Uri } | undefined> {
    const file = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (file) {
      const root = projectOf(this.roots, file);
      if (root) return { args: { uri: file.toString() }, root };
    }
    if (this.roots.length === 1) return { args: { root: this.roots[0].fsPath }, root: this.roots[0] };
    if (this.roots.length === 0) throw new Error('no efmesh.yaml in this workspace: open the folder of an efmesh project');
    const pick = await vscode.window.showQuickPick(
      this.roots.map((r) => ({ label: vscode.workspace.asRelativePath(r, true), root: r })),
      { placeHolder: 'Which efmesh project?' },
    );
    return pick && { args: { root: pick.root.fsPath }, root: pick.root };
  }

  /** execute runs a server command and returns its result. */
  async execute<T>(command: string, args: CommandArgs, token?: CancellationToken, workDoneToken?: string): Promise<T> {
    const client = this.running();
    return client.sendRequest(
      ExecuteCommandRequest.type,
      { command, arguments: [args], workDoneToken },
      token,
    ) as Promise<T>;
  }

  /**
   * withProgress runs a server command under a progress notification that
   * shows the server's own work-done reports (models built, …).
   */
  async withProgress<T>(title: string, command: string, args: CommandArgs): Promise<T> {
    const client = this.running();
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      async (progress, cancel) => {
        const token = `efmesh-vscode-${++this.progressSeq}`;
        let last = 0;
        const sub = client.onProgress(
          WorkDoneProgress.type,
          token,
          (v: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => {
            if (v.kind === 'end') return;
            const pct = v.percentage ?? last;
            progress.report({ message: v.message, increment: Math.max(0, pct - last) });
            last = Math.max(last, pct);
          },
        );
        try {
          return await this.execute<T>(command, args, cancel, token);
        } finally {
          sub.dispose();
        }
      },
    );
  }

  /** log writes a block to the output channel and shows it. */
  log(lines: string | string[]): void {
    for (const line of Array.isArray(lines) ? lines : [lines]) this.output.appendLine(line);
    this.output.show(true);
  }

  relative(root: vscode.Uri, file: vscode.Uri): string {
    return path.relative(root.fsPath, file.fsPath).split(path.sep).join('/');
  }
}

/** messageOf turns a failed request into one line for a notification. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
