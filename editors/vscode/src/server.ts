// Starting `efmesh lsp`: finding the binary, the projects of the workspace,
// and the language client restricted to their files.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  DocumentSelector,
  LanguageClient,
  LanguageClientOptions,
  Middleware,
  ServerOptions,
} from 'vscode-languageclient/node';
import { initializationOptions } from './settings';

export const CONFIG_FILE = 'efmesh.yaml';

/** Where to get efmesh, shown (as a button) whenever the binary cannot be found or started. */
export const INSTALL_URL = 'https://github.com/efmesh/efmesh#install';

/** The fix shown whenever the binary cannot be found or started. */
export const INSTALL_HINT =
  'Install the efmesh extension for your platform (it ships efmesh), or install efmesh with ' +
  '`go install github.com/efmesh/efmesh/cmd/efmesh@latest` and make sure it is on PATH, or set "efmesh.path" to its full path.';

/** bundledBinary is where a platform package (vsce package --target) keeps its efmesh. */
export function bundledBinary(extensionPath: string): string {
  return path.join(extensionPath, 'bin', process.platform === 'win32' ? 'efmesh.exe' : 'efmesh');
}

/** Where the binary that runs came from, for the log and the messages. */
export type BinarySource = 'setting' | 'bundled' | 'PATH';

/**
 * findBinary picks the efmesh to run: the "efmesh.path" setting when it is
 * set, else the binary this extension ships (platform packages), else
 * efmesh on PATH. It returns undefined, with what was tried, when none is
 * an executable file.
 */
export function findBinary(setting: string, extensionPath: string): { binary?: string; source?: BinarySource; tried: string[] } {
  const tried: string[] = [];
  if (setting.trim()) {
    const p = resolveBinary(setting);
    return p ? { binary: p, source: 'setting', tried } : { tried: [`"efmesh.path": "${setting.trim()}"`] };
  }
  const bundled = bundledBinary(extensionPath);
  if (isExecutable(bundled)) return { binary: bundled, source: 'bundled', tried };
  tried.push(`the bundled ${bundled}`);
  const onPath = resolveBinary('efmesh');
  if (onPath) return { binary: onPath, source: 'PATH', tried };
  tried.push('efmesh on PATH');
  return { tried };
}

function isExecutable(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * resolveBinary finds the efmesh executable a setting names: a bare name
 * is looked up on PATH, a path (absolute, ~/…, or relative to the first
 * workspace folder) must be an executable file. It returns undefined when
 * there is none.
 */
export function resolveBinary(setting: string): string | undefined {
  let name = setting.trim() || 'efmesh';
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (folder) name = name.replace(/\$\{workspaceFolder\}/g, folder);
  if (name === '~' || name.startsWith('~/')) name = path.join(os.homedir(), name.slice(1));
  const exts = process.platform === 'win32' ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  const executable = (p: string): boolean => exts.some((ext) => isExecutable(p + ext));
  if (name.includes('/') || name.includes(path.sep)) {
    const p = path.isAbsolute(name) ? name : path.resolve(folder ?? process.cwd(), name);
    return executable(p) ? p : undefined;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/** findProjects returns the folders of the workspace that hold efmesh.yaml. */
export async function findProjects(): Promise<vscode.Uri[]> {
  const files = await vscode.workspace.findFiles(`**/${CONFIG_FILE}`, '**/{node_modules,.git,.efmesh}/**');
  const roots = files.map((f) => vscode.Uri.joinPath(f, '..'));
  roots.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
  return roots;
}

/**
 * documentSelector lists the files the server is told about: SQL files,
 * efmesh.yaml and unit tests below a project root, and nothing else, so
 * the extension never claims the .sql files of other projects.
 */
export function documentSelector(roots: vscode.Uri[]): DocumentSelector {
  const selector: DocumentSelector = [];
  for (const root of roots) {
    for (const glob of ['**/*.sql', CONFIG_FILE, 'tests/**/*.{yaml,yml}']) {
      // vscode-languageclient hands filter patterns to VS Code unchanged
      // (protocolConverter.asDocumentSelector), and a RelativePattern is the
      // one way to say "below this folder" without glob-escaping its path.
      selector.push({ scheme: 'file', pattern: new vscode.RelativePattern(root, glob) as unknown as string });
    }
  }
  return selector;
}

/** isUnder tells whether uri is a file below one of roots. */
export function projectOf(roots: vscode.Uri[], uri: vscode.Uri): vscode.Uri | undefined {
  if (uri.scheme !== 'file') return undefined;
  let best: vscode.Uri | undefined;
  for (const root of roots) {
    const rel = path.relative(root.fsPath, uri.fsPath);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) {
      if (!best || root.fsPath.length > best.fsPath.length) best = root;
    }
  }
  return best;
}

export function createClient(
  binary: string,
  roots: vscode.Uri[],
  environment: string,
  middleware: Middleware,
  output: vscode.OutputChannel,
): LanguageClient {
  const serverOptions: ServerOptions = {
    command: binary,
    args: ['lsp'],
    // No transport: with TransportKind.stdio vscode-languageclient adds
    // --stdio to the arguments, which `efmesh lsp` does not take (stdio is
    // its only transport); without one it talks over stdio all the same.
    options: { cwd: roots[0]?.fsPath },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(roots),
    diagnosticCollectionName: 'efmesh',
    outputChannel: output,
    initializationOptions: initializationOptions(environment),
    // Sends workspace/didChangeConfiguration {settings: {efmesh: …}} when a
    // setting changes; the server reads efmesh.environment and
    // efmesh.lint from it.
    synchronize: { configurationSection: 'efmesh' },
    middleware,
  };
  return new LanguageClient('efmesh', 'efmesh language server', serverOptions, clientOptions);
}
