// The preview panel's page: efmesh.preview's rows as an HTML table. Pure
// (no vscode import), so test/preview.mjs renders it in headless Chromium.

/** efmesh.preview's result: a model's first rows as the environment serves them. */
export interface PreviewResult {
  model?: string; // for a selection: the model whose file holds it, if any
  env: string;
  preview: boolean; // computed from this version: the environment does not serve it yet
  selection?: boolean; // the rows of a selected query text, not of the model
  columns: { name: string; type: string }[];
  rows: unknown[][];
  truncated: boolean;
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** escapeHtml makes text safe in HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => escapes[c]);
}

/** cellText is how a value is shown: NULL for null, JSON for lists and structs. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** An LSP position and range (VS Code's are the same, in UTF-16 units). */
export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

/**
 * selectionArgs is what efmesh.preview is asked for the editor's selection:
 * the range of a file the server holds (its errors come back at their place
 * in the file), else the selected text itself; undefined when nothing is
 * selected (the model's preview).
 */
export function selectionArgs(sel: { range: Range; text: string }, inProject: boolean): { range?: Range; text?: string } | undefined {
  const { start, end } = sel.range;
  if (start.line === end.line && start.character === end.character) return undefined;
  if (sel.text.trim() === '') return undefined;
  return inProject ? { range: sel.range } : { text: sel.text };
}

/** previewTitle names what the rows are of, where, and how many. */
export function previewTitle(r: PreviewResult): string {
  const n = r.rows.length;
  const what = r.selection ? `Selected query${r.model ? ` of ${r.model}` : ''}` : (r.model ?? '');
  let title = `${what} in ${r.env}: ${n} row${n === 1 ? '' : 's'}`;
  if (r.truncated) title += ' (more not shown)';
  return title;
}

/**
 * previewHtml is the whole page. It runs no script: the CSP allows only
 * the inline style of this page (by nonce) and nothing else.
 */
export function previewHtml(r: PreviewResult, nonce: string): string {
  const title = previewTitle(r);
  const note = r.selection
    ? `<p class="note">The selected query, its refs read from ${escapeHtml(r.env)}'s views.</p>`
    : r.preview
      ? `<p class="note">Computed from this version: ${escapeHtml(r.env)} does not serve it yet.</p>`
      : '';
  const head = r.columns
    .map((c) => `<th scope="col"><span class="name">${escapeHtml(c.name)}</span><span class="type">${escapeHtml(c.type)}</span></th>`)
    .join('');
  const body = r.rows
    .map((row) => {
      const cells = r.columns.map((_, i) => {
        const v = row[i];
        const cls = v === null || v === undefined ? ' class="null"' : typeof v === 'number' ? ' class="num"' : '';
        return `<td${cls}>${escapeHtml(cellText(v))}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family, sans-serif); color: var(--vscode-foreground); padding: 0 12px; }
h1 { font-size: 1.1em; font-weight: 600; }
.note { color: var(--vscode-descriptionForeground); }
table { border-collapse: collapse; font-family: var(--vscode-editor-font-family, monospace); font-size: var(--vscode-editor-font-size, 12px); }
th, td { border: 1px solid var(--vscode-panel-border, #8884); padding: 2px 8px; text-align: left; white-space: pre; }
th { position: sticky; top: 0; background: var(--vscode-editor-background, #fff); }
th .type { display: block; font-weight: normal; color: var(--vscode-descriptionForeground); }
td.num { text-align: right; }
td.null { color: var(--vscode-disabledForeground, #888); font-style: italic; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${note}
<table>
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table>
</body>
</html>`;
}
