// The plan view's HTML, apart from the panel so that it is tested without
// VS Code (test/webview.mjs renders it in headless Chromium). The page
// loads only this extension's own script and style, under a strict CSP.

/** planPage is the plan view's document; media/plan.js draws into it. */
export function planPage(cspSource: string, script: string, style: string, nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${cspSource}; style-src ${cspSource}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>efmesh plan</title>
</head>
<body>
<header>
  <h1 id="title">Plan</h1>
  <button id="apply" disabled>Apply</button>
  <button id="replan" class="secondary">Plan again</button>
  <span id="status">planning…</span>
</header>
<p id="summary"></p>
<table id="table" hidden>
  <thead><tr><th>Model</th><th>Category</th><th>Kind</th><th>Build / reuse</th><th>Intervals</th></tr></thead>
  <tbody id="models"></tbody>
</table>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
