// Preview rows: a webview with the first rows of a model as the
// environment serves them (efmesh.preview), for the "Preview rows" code
// lens and the efmesh.previewModel command; with a selection in the
// editor, the rows of the selected query text.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { previewHtml, previewTitle, PreviewResult, Range, selectionArgs } from './previewTable';
import { CommandArgs, Session } from './session';

/** The preview command's arguments: CommandArgs, a row limit, and a selected query (a range of uri, or a text). */
export type PreviewArgs = CommandArgs & { limit?: number; range?: Range; text?: string };

/**
 * withSelection adds the active editor's selection to args when it is in
 * the file args are about (or args name no file): the preview is then of
 * the selected query text.
 */
function withSelection(args: PreviewArgs): PreviewArgs {
  if (args.range || args.text) return args;
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) return args;
  const doc = editor.document;
  if (args.uri && args.uri !== doc.uri.toString()) return args;
  const s = editor.selection;
  const range = { start: { line: s.start.line, character: s.start.character }, end: { line: s.end.line, character: s.end.character } };
  const sel = selectionArgs({ range, text: doc.getText(s) }, args.uri !== undefined);
  return sel ? { ...args, ...sel } : args;
}

export class PreviewPanel {
  private static current: PreviewPanel | undefined;

  private constructor(private readonly panel: vscode.WebviewPanel) {
    panel.onDidDispose(() => {
      if (PreviewPanel.current === this) PreviewPanel.current = undefined;
    });
  }

  /** show runs efmesh.preview for args and shows the rows in the one preview panel. */
  static async show(session: Session, args: PreviewArgs): Promise<void> {
    args = withSelection(args);
    const result = await session.execute<PreviewResult>('efmesh.preview', { ...args, env: args.env ?? session.environment() });
    if (!PreviewPanel.current) {
      const panel = vscode.window.createWebviewPanel('efmesh.preview', 'efmesh preview', vscode.ViewColumn.Beside, {
        enableScripts: false,
        localResourceRoots: [],
      });
      PreviewPanel.current = new PreviewPanel(panel);
    }
    const p = PreviewPanel.current;
    p.panel.title = result.selection ? `Rows: ${previewTitle(result)}` : `Rows: ${result.model} (${result.env})`;
    p.panel.webview.html = previewHtml(result, crypto.randomBytes(16).toString('base64'));
    p.panel.reveal(vscode.ViewColumn.Beside, true);
  }
}
