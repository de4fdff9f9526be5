// The preview panel's page (src/previewTable.ts, compiled) rendered in
// headless Chromium: the columns and rows of an efmesh.preview result are
// a table, values that look like HTML stay text, NULLs and nested values
// are shown, and the page runs no script.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { findChromium } from './chromium.mjs';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { previewHtml, selectionArgs } = require(path.join(dir, 'out/previewTable.js'));

let passed = 0;
let failed = 0;
function check(ok, what, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? `\n     ${detail}` : ''}`);
}

const browser = findChromium('vscode preview page');

const result = {
  model: 'mart.revenue',
  env: 'dev',
  preview: true,
  truncated: true,
  columns: [
    { name: 'customer', type: 'VARCHAR' },
    { name: 'revenue', type: 'DOUBLE' },
    { name: 'tags', type: 'VARCHAR[]' },
  ],
  rows: [
    ['<b>ann</b> & "co"', 12, ['a', 'b']],
    ['Käufer', null, { k: 1 }],
  ],
};
// dump renders a page in headless Chromium and returns its DOM.
function dump(html) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'efmesh-preview-'));
  const file = path.join(tmp, 'preview.html');
  fs.writeFileSync(file, html);
  try {
    return execFileSync(browser, ['--headless', '--no-sandbox', '--disable-gpu', '--dump-dom', `file://${file}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 60000,
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
const dom = dump(previewHtml(result, 'TESTNONCE'));

const cells = (tag) => [...dom.matchAll(new RegExp(`<${tag}[^>]*>(.*?)</${tag}>`, 'gs'))].map((m) => m[1]);
const rows = [...dom.matchAll(/<tbody>(.*?)<\/tbody>/gs)].flatMap((m) => [...m[1].matchAll(/<tr>/g)]);
check(cells('th').length === 3, 'the header has one cell per column', cells('th').join(' | '));
check(cells('th')[1]?.includes('revenue') && cells('th')[1]?.includes('DOUBLE'), 'a header cell names the column and its type', cells('th')[1]);
check(rows.length === 2, 'the body has one row per result row', String(rows.length));
const td = cells('td');
check(td.length === 6, 'every row has a cell per column', td.join(' | '));
check(td[0] === '&lt;b&gt;ann&lt;/b&gt; &amp; "co"' && !dom.includes('<b>ann</b>'), 'a value that looks like HTML stays text', td[0]);
check(td[1] === '12' && /<td class="num">12<\/td>/.test(dom), 'numbers are right-aligned cells', td[1]);
check(td[2] === '["a","b"]' && td[5] === '{"k":1}', 'lists and structs are shown as JSON', `${td[2]} ${td[5]}`);
check(td[3] === 'Käufer', 'non-ASCII text is kept', td[3]);
check(/<td class="null">NULL<\/td>/.test(dom), 'NULL is shown as NULL, marked', td[4]);
check(dom.includes('mart.revenue in dev: 2 rows (more not shown)'), 'the title names the model, the environment and that more rows exist');
check(dom.includes('does not serve it yet'), 'a preview of an unbuilt version says so');
check(!/<script/i.test(dom) && dom.includes("default-src 'none'"), 'the page runs no script, under a CSP that allows none');

// The selected query's rows: titled as such, with its model.
const sel = dump(previewHtml({ model: 'mart.revenue', env: 'dev', preview: true, selection: true, truncated: false, columns: [{ name: 'n', type: 'BIGINT' }], rows: [[3]] }, 'TESTNONCE'));
check(sel.includes('Selected query of mart.revenue in dev: 1 row'), "a selection's page says it shows the selected query", sel.match(/<h1>(.*?)<\/h1>/s)?.[1]);
check(sel.includes("its refs read from dev's views") && !sel.includes('does not serve it yet'), "a selection's page says where its refs read from");

// The command's wiring: what efmesh.preview is asked for a selection.
const range = { start: { line: 3, character: 2 }, end: { line: 4, character: 0 } };
check(JSON.stringify(selectionArgs({ range, text: 'SELECT 1\n' }, true)) === JSON.stringify({ range }), 'a selection in a project file is sent as its range');
check(JSON.stringify(selectionArgs({ range, text: 'SELECT 1\n' }, false)) === JSON.stringify({ text: 'SELECT 1\n' }), 'a selection in another buffer is sent as its text');
check(selectionArgs({ range: { start: range.start, end: range.start }, text: '' }, true) === undefined, 'no selection: the model is previewed');
check(selectionArgs({ range, text: '  \n' }, true) === undefined, 'a blank selection: the model is previewed');

console.log(`\nvscode preview page: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
