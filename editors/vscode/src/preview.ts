// Preview rows: a webview with the first rows of a model as the
// environment serves them (efmesh.preview), for the "Preview rows" code
// lens and the efmesh.previewModel command.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { previewHtml, PreviewResult } from './previewTable';
import { CommandArgs, Session } from './session';

/** The preview command's arguments: CommandArgs and a row limit. */
export type PreviewArgs = CommandArgs & { limit?: number };

export class PreviewPanel {
  private static current: PreviewPanel | undefined;

  private constructor(private readonly panel: vscode.WebviewPanel) {
    panel.onDidDispose(() => {
      if (PreviewPanel.current === this) PreviewPanel.current = undefined;
    });
  }

  /** show runs efmesh.preview for args and shows the rows in the one preview panel. */
  static async show(session: Session, args: PreviewArgs): Promise<void> {
    const result = await session.execute<PreviewResult>('efmesh.preview', { ...args, env: args.env ?? session.environment() });
    if (!PreviewPanel.current) {
      const panel = vscode.window.createWebviewPanel('efmesh.preview', 'efmesh preview', vscode.ViewColumn.Beside, {
        enableScripts: false,
        localResourceRoots: [],
      });
      PreviewPanel.current = new PreviewPanel(panel);
    }
    const p = PreviewPanel.current;
    p.panel.title = `Rows: ${result.model} (${result.env})`;
    p.panel.webview.html = previewHtml(result, crypto.randomBytes(16).toString('base64'));
    p.panel.reveal(vscode.ViewColumn.Beside, true);
  }
}
