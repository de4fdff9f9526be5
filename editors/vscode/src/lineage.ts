// Show lineage: a webview that draws efmesh.lineage's graph of models, or
// of one column down to its sources. It works offline: the page loads only
// this extension's own script and style (media/), under a strict CSP.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { CommandArgs, LineageGraph, messageOf, Session } from './session';

type FromPage =
  | { type: 'open'; file: string }
  | { type: 'trace'; model: string; column: string }
  | { type: 'ready' };

export class LineagePanel {
  private static current: LineagePanel | undefined;
  private args: CommandArgs = {};
  private root: vscode.Uri | undefined;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly session: Session,
    extensionUri: vscode.Uri,
  ) {
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    panel.webview.options = { enableScripts: true, localResourceRoots: [media] };
    panel.webview.html = page(panel.webview, media);
    panel.webview.onDidReceiveMessage((m: FromPage) => this.onMessage(m));
    panel.onDidDispose(() => {
      if (LineagePanel.current === this) LineagePanel.current = undefined;
    });
  }

  /** show draws the lineage for args, in the one lineage panel. */
  static async show(session: Session, extensionUri: vscode.Uri, args: CommandArgs, root?: vscode.Uri): Promise<void> {
    if (!LineagePanel.current) {
      const panel = vscode.window.createWebviewPanel('efmesh.lineage', 'efmesh lineage', vscode.ViewColumn.Beside, {
        enableScripts: true,
        localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')],
      });
      LineagePanel.current = new LineagePanel(panel, session, extensionUri);
    }
    const p = LineagePanel.current;
    p.args = args;
    p.root = root ?? p.root;
    p.panel.reveal(vscode.ViewColumn.Beside, true);
    await p.draw();
  }

  private async draw(): Promise<void> {
    try {
      const graph = await this.session.execute<LineageGraph>('efmesh.lineage', this.args);
      this.panel.title = `Lineage: ${graph.root}`;
      await this.panel.webview.postMessage({ type: 'graph', graph });
    } catch (err) {
      await this.panel.webview.postMessage({ type: 'error', message: messageOf(err) });
    }
  }

  private async onMessage(m: FromPage): Promise<void> {
    switch (m.type) {
      case 'ready':
        return this.draw();
      case 'trace':
        // Keep the project (uri or root), ask about another model/column.
        this.args = { uri: this.args.uri, root: this.args.root, model: m.model, column: m.column || undefined };
        return this.draw();
      case 'open': {
        const root = this.root ?? this.session.roots[0];
        if (!root || !m.file) return;
        const uri = vscode.Uri.joinPath(root, ...m.file.split('/'));
        await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One });
        return;
      }
    }
  }
}

function page(webview: vscode.Webview, media: vscode.Uri): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(media, 'lineage.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'lineage.css'));
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${webview.cspSource}; style-src ${webview.cspSource}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>efmesh lineage</title>
</head>
<body>
<form id="trace">
  <label>model <input id="model" size="28" spellcheck="false"></label>
  <label>column <input id="column" size="18" spellcheck="false" placeholder="(whole model)"></label>
  <button type="submit">Trace</button>
  <span id="status"></span>
</form>
<div id="graph"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
