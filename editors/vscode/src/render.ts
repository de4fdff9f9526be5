// Render model: the SQL a model runs, in a read-only virtual document
// beside it, kept current while the model is edited.
import * as path from 'path';
import * as vscode from 'vscode';
import { messageOf, Session } from './session';

export const RENDER_SCHEME = 'efmesh-render';

export class RenderProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly session: Session) {}

  /** uriFor names the rendered document of a model file for env ('' = physical tables). */
  static uriFor(source: vscode.Uri, env: string): vscode.Uri {
    const base = path.basename(source.path, '.sql');
    const title = `${base} (${env || 'physical'}).sql`; // the tab title; .sql gives SQL highlighting
    return vscode.Uri.from({
      scheme: RENDER_SCHEME,
      path: path.posix.join(path.posix.dirname(source.path), title),
      query: new URLSearchParams({ src: source.toString(), env }).toString(),
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const src = q.get('src') ?? '';
    const env = q.get('env') ?? '';
    try {
      const sql = await this.session.execute<string>('efmesh.render', { uri: src, env: env || undefined }, token);
      const where = env ? `environment ${env}` : 'the physical tables';
      return `-- rendered by efmesh for ${where}; read-only, follows the model as you edit\n${sql}\n`;
    } catch (err) {
      return `-- efmesh could not render ${vscode.Uri.parse(src).path}:\n${messageOf(err)
        .split('\n')
        .map((l) => `-- ${l}`)
        .join('\n')}\n`;
    }
  }

  /** refresh re-renders the open rendered documents, a moment after the last edit. */
  refresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      for (const doc of vscode.workspace.textDocuments) {
        if (doc.uri.scheme === RENDER_SCHEME && !doc.isClosed) this.changed.fire(doc.uri);
      }
    }, 300);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.changed.dispose();
  }
}

/** openRender shows the rendered SQL of a model file beside it. */
export async function openRender(session: Session, source: vscode.Uri | undefined, env: string): Promise<void> {
  session.running();
  const file = source ?? vscode.window.activeTextEditor?.document.uri;
  if (!file || file.scheme !== 'file' || !file.path.endsWith('.sql')) {
    throw new Error('open a model (.sql) of the project to render it');
  }
  const doc = await vscode.workspace.openTextDocument(RenderProvider.uriFor(file, env));
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
}
