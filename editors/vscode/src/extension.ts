// The efmesh extension: starts `efmesh lsp` for the workspace's efmesh
// projects and adds the commands that need more than the protocol gives a
// client (render beside the model, plan/apply with progress and a prod
// confirmation, lineage as a graph, unit tests, the environment).
//
// Every command contributed in package.json is registered in activate,
// here (test/manifest.mjs checks it).
import * as vscode from 'vscode';
import { DocumentFormattingRequest, Middleware, State } from 'vscode-languageclient/node';
import { apply, pickEnvironment, plan, runTests } from './deploy';
import { LineagePanel } from './lineage';
import { PlanPanel } from './planview';
import { PreviewPanel } from './preview';
import { openRender, RENDER_SCHEME, RenderProvider } from './render';
import { CONFIG_FILE, createClient, findBinary, findProjects, INSTALL_HINT, INSTALL_URL, projectOf } from './server';
import { formatOnSave, previewLimit } from './settings';
import { CommandArgs, messageOf, PROD, Session } from './session';
import { UnitTests } from './testing';
import { EnvironmentsTree, ModelsTree } from './trees';

let session: Session | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('efmesh');
  const serverLog = vscode.window.createOutputChannel('efmesh language server');
  const s = new Session(output);
  session = s;
  const render = new RenderProvider(s);
  const status = vscode.window.createStatusBarItem('efmesh.environment', vscode.StatusBarAlignment.Left, 10);
  status.name = 'efmesh environment';
  status.command = 'efmesh.selectEnvironment';
  const modelsTree = new ModelsTree(s);
  const envsTree = new EnvironmentsTree(s);
  const unitTests = new UnitTests(s);
  context.subscriptions.push(output, serverLog, render, status, unitTests);
  const refreshTrees = () => {
    modelsTree.refresh();
    envsTree.refresh();
  };
  // showPlan plans (asking for what is missing) and opens the plan view.
  const showPlan = async (given?: CommandArgs) => {
    const planned = await plan(s, given);
    if (planned) PlanPanel.show(s, context.extensionUri, planned.args, planned.plan, refreshTrees);
  };

  const updateStatus = () => {
    const env = s.environment();
    status.text = `$(database) efmesh: ${env}`;
    status.tooltip = `efmesh: code lenses, plans and renders use environment "${env}". Click to change.`;
    status.backgroundColor = env === PROD ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    if (s.roots.length > 0) status.show();
    else status.hide();
  };

  // guarded runs a command and turns a failure into an error message.
  const guarded =
    <A extends unknown[]>(fn: (...args: A) => Promise<unknown>) =>
    async (...args: A): Promise<void> => {
      try {
        await fn(...args);
      } catch (err) {
        const msg = messageOf(err);
        if (/cancel/i.test(msg)) return;
        const more = 'Show output';
        vscode.window.showErrorMessage(`efmesh: ${msg}`, more).then((c) => c === more && output.show());
      }
    };

  const uriArg = (arg: unknown): vscode.Uri | undefined => (arg instanceof vscode.Uri ? arg : undefined);

  // Commands the server's code lenses run go to the same UI as ours.
  const middleware: Middleware = {
    executeCommand: async (command, args, next) => {
      const a = (args[0] ?? {}) as CommandArgs;
      const run = guarded(async () => {
        switch (command) {
          case 'efmesh.render':
            return openRender(s, a.uri ? vscode.Uri.parse(a.uri) : undefined, a.env ?? s.environment());
          case 'efmesh.plan':
            return showPlan(a);
          case 'efmesh.apply':
            await apply(s, a);
            return refreshTrees();
          case 'efmesh.lineage':
            return LineagePanel.show(s, context.extensionUri, a, a.uri ? projectOf(s.roots, vscode.Uri.parse(a.uri)) : undefined);
          case 'efmesh.preview':
            return PreviewPanel.show(s, { limit: previewLimit(), ...a });
          default:
            return next(command, args);
        }
      });
      return run();
    },
  };

  let starting: Promise<void> | undefined;
  const stop = async () => {
    const client = s.client;
    s.client = undefined;
    void vscode.commands.executeCommand('setContext', 'efmesh.active', false);
    if (client && client.state !== State.Stopped) await client.stop().catch(() => undefined);
  };
  const start = async () => {
    await stop();
    s.roots = await findProjects();
    updateStatus();
    if (s.roots.length === 0) return;
    const setting = vscode.workspace.getConfiguration('efmesh').get<string>('path', '');
    const found = findBinary(setting, context.extensionPath);
    s.binary = found.binary;
    if (!s.binary) {
      const open = 'Open Settings';
      const install = 'How to install';
      const retry = 'Retry';
      // Not awaited: a pending notification must not hold up the next restart.
      void vscode.window
        .showErrorMessage(`efmesh: cannot find the efmesh binary (tried ${found.tried.join(', ')}). ${INSTALL_HINT}`, install, open, retry)
        .then((choice) => {
          if (choice === install) void vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
          if (choice === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'efmesh.path');
          if (choice === retry) void restart();
        });
      return;
    }
    output.appendLine(`efmesh: starting ${s.binary} lsp (${found.source === 'bundled' ? 'the binary this extension ships' : found.source === 'setting' ? 'from efmesh.path' : 'found on PATH'})`);
    const client = createClient(s.binary, s.roots, s.environment(), middleware, serverLog);
    s.client = client;
    try {
      await client.start();
      void vscode.commands.executeCommand('setContext', 'efmesh.active', true);
      refreshTrees();
      void unitTests.discover();
    } catch (err) {
      s.client = undefined;
      vscode.window.showErrorMessage(`efmesh: could not start "${s.binary} lsp": ${messageOf(err)}. ${INSTALL_HINT}`);
    }
  };
  const restart = () => (starting = (starting ?? Promise.resolve()).then(start, start));

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(RENDER_SCHEME, render),

    vscode.commands.registerCommand('efmesh.renderModel', guarded(async (arg?: unknown) => {
      await openRender(s, uriArg(arg), s.environment());
    })),
    vscode.window.registerTreeDataProvider('efmesh.models', modelsTree),
    vscode.window.registerTreeDataProvider('efmesh.environments', envsTree),
    vscode.commands.registerCommand('efmesh.planEnvironment', guarded(async () => showPlan())),
    vscode.commands.registerCommand('efmesh.applyEnvironment', guarded(async () => {
      await apply(s);
      refreshTrees();
    })),
    vscode.commands.registerCommand('efmesh.refreshTrees', () => refreshTrees()),
    vscode.commands.registerCommand('efmesh.openModel', guarded(async (uri?: unknown) => {
      if (typeof uri === 'string') await vscode.window.showTextDocument(vscode.Uri.parse(uri));
    })),
    vscode.commands.registerCommand('efmesh.useEnvironment', guarded(async (node?: unknown) => {
      const env = (node as { env?: { name?: string } } | undefined)?.env?.name;
      if (!env) return;
      const target = vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      await vscode.workspace.getConfiguration('efmesh').update('environment', env, target);
    })),
    vscode.commands.registerCommand('efmesh.showLineage', guarded(async (arg?: unknown) => {
      const t = await s.target(uriArg(arg));
      if (!t) return;
      const args: CommandArgs = { ...t.args };
      // With the cursor on a word of the model, try that column first.
      const editor = vscode.window.activeTextEditor;
      if (editor && args.uri === editor.document.uri.toString()) {
        const range = editor.document.getWordRangeAtPosition(editor.selection.active, /[A-Za-z_][\w]*/);
        const word = range && editor.document.getText(range);
        if (word) {
          try {
            await s.execute('efmesh.lineage', { ...args, column: word });
            args.column = word;
          } catch {
            // not a column of this model: the model's lineage
          }
        }
      }
      await LineagePanel.show(s, context.extensionUri, args, t.root);
    })),
    vscode.commands.registerCommand('efmesh.previewModel', guarded(async (arg?: unknown) => {
      const t = await s.target(uriArg(arg));
      if (t) await PreviewPanel.show(s, { ...t.args, limit: previewLimit() });
    })),
    vscode.commands.registerCommand('efmesh.runTests', guarded(async (arg?: unknown) => {
      s.running();
      await runTests(s, uriArg(arg));
    })),
    vscode.commands.registerCommand('efmesh.selectEnvironment', guarded(async () => {
      const env = await pickEnvironment(s, `Environment for code lenses, plans and renders (now ${s.environment()})`);
      if (!env) return;
      const target = vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      await vscode.workspace.getConfiguration('efmesh').update('environment', env, target);
    })),
    vscode.commands.registerCommand('efmesh.restartServer', guarded(async () => restart())),
    vscode.commands.registerCommand('efmesh.showOutput', () => output.show()),

    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('efmesh.environment')) {
        updateStatus();
        render.refresh();
        refreshTrees();
      }
      // The server reads these when it starts.
      if (e.affectsConfiguration('efmesh.path') || e.affectsConfiguration('efmesh.bindInServer')) void restart();
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (projectOf(s.roots, e.document.uri)) render.refresh();
    }),
    // Format on save: the server's formatting (the same as efmesh format)
    // of a project's models, applied as part of the save.
    vscode.workspace.onWillSaveTextDocument((e) => {
      const d = e.document;
      if (!formatOnSave() || !s.client || d.languageId === 'yaml' || !d.uri.path.endsWith('.sql') || !projectOf(s.roots, d.uri)) return;
      const client = s.client;
      const editor = vscode.window.visibleTextEditors.find((x) => x.document === d);
      const options = { tabSize: Number(editor?.options.tabSize ?? 2), insertSpaces: editor?.options.insertSpaces !== false };
      const began = Date.now();
      const formatted = client
        .sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: d.uri.toString() }, options })
        .then((edits) => client.protocol2CodeConverter.asTextEdits(edits))
        .then(
          (edits) => {
            output.appendLine(`efmesh: format on save: ${vscode.workspace.asRelativePath(d.uri)}: ${edits?.length ?? 0} edits in ${Date.now() - began} ms`);
            return edits ?? [];
          },
          (err) => {
            output.appendLine(`efmesh: format on save: ${messageOf(err)}`);
            return [];
          },
        );
      e.waitUntil(formatted);
    }),
    vscode.workspace.onDidSaveTextDocument((d) => {
      if (projectOf(s.roots, d.uri)) refreshTrees();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void restart()),
    { dispose: () => void stop() },
  );

  // A project created or removed changes which files the server sees.
  const watcher = vscode.workspace.createFileSystemWatcher(`**/${CONFIG_FILE}`, false, true, false);
  const rootsChanged = async () => {
    const roots = await findProjects();
    if (roots.map((r) => r.toString()).join('\n') !== s.roots.map((r) => r.toString()).join('\n')) await restart();
  };
  context.subscriptions.push(watcher, watcher.onDidCreate(rootsChanged), watcher.onDidDelete(rootsChanged));

  void restart(); // activation does not wait for the server
}

export async function deactivate(): Promise<void> {
  const client = session?.client;
  if (client && client.state !== State.Stopped) await client.stop();
}
