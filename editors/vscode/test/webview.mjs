// The plan view's page, rendered in headless Chromium: out/planpage.js's
// HTML (its CSP included) with media/plan.js and media/plan.css, and a
// stand-in for VS Code's webview API that records what the page posts.
// Chromium's --dump-dom gives back the DOM the script built.
//
//   node test/webview.mjs            (needs chromium on PATH, or $CHROMIUM)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { findChromium } from './chromium.mjs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { planPage } = require(path.join(dir, 'out/planpage.js'));

let passed = 0;
let failed = 0;
function check(ok, what, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? `\n     ${detail}` : ''}`);
}

const chromium = findChromium('webview');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'efmesh-webview-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

// render draws plan in the page and, once drawn, runs the clicks; it
// returns the dumped DOM and the messages the page posted.
function render(name, plan, clicks) {
  const nonce = 'dGVzdG5vbmNl';
  const media = pathToFileURL(path.join(dir, 'media')).href;
  let html = planPage('file:', `${media}/plan.js`, `${media}/plan.css`, nonce);
  // The stand-in for acquireVsCodeApi: it answers the page's "ready" with
  // the plan, as the panel does, then clicks and records into #__posted.
  const stub = `<script nonce="${nonce}">
window.acquireVsCodeApi = () => ({
  postMessage(m) {
    const out = document.getElementById('__posted') || document.body.appendChild(Object.assign(document.createElement('pre'), { id: '__posted' }));
    out.textContent += JSON.stringify(m) + '\\n';
    if (m.type === 'ready') {
      window.postMessage({ type: 'plan', plan: ${JSON.stringify(plan)} }, '*');
      setTimeout(() => { for (const sel of ${JSON.stringify(clicks)}) document.querySelector(sel)?.click(); }, 50);
    }
  },
});
</script>
`;
  html = html.replace(`<script nonce="${nonce}" src=`, `${stub}<script nonce="${nonce}" src=`);
  const file = path.join(work, `${name}.html`);
  fs.writeFileSync(file, html);
  const dom = execFileSync(
    chromium,
    ['--headless', '--no-sandbox', '--disable-gpu', '--allow-file-access-from-files', '--virtual-time-budget=3000', '--dump-dom', pathToFileURL(file).href],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60000 },
  );
  const posted = (/<pre id="__posted">([\s\S]*?)<\/pre>/.exec(dom)?.[1] ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')));
  return { dom, posted };
}

const text = (dom, id) => (new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(dom)?.[1] ?? '').trim();
const rows = (dom) => [...dom.matchAll(/<tr data-model="([^"]+)">([\s\S]*?)<\/tr>/g)].map((m) => ({
  model: m[1],
  cells: [...m[2].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()),
}));

// A plan with every column filled: a breaking change with backfill, its
// indirect child reusing nothing, a forward-only reuse, an unchanged model
// (not listed) and a model whose name would be HTML if it were parsed.
const plan = {
  env: 'dev',
  hasChanges: true,
  summary: 'Plan for environment dev',
  models: [
    { name: 'raw.orders', kind: 'SEED', change: 'unchanged', build: false, backfill: [], explain: [] },
    { name: 'mart.daily', kind: 'INCREMENTAL_BY_TIME_RANGE', change: 'breaking', build: true, intervals: 3,
      backfill: [['2026-01-01T00:00:00Z', '2026-01-04T00:00:00Z']], explain: ['select_list[1]: sum(amount) -> sum(amount) * 2'] },
    { name: 'mart.top', kind: 'VIEW', change: 'indirect', build: true, cause: ['mart.daily'], backfill: [], explain: [] },
    { name: 'mart.wide', kind: 'FULL', change: 'forward-only', build: false, reusedFrom: 'abcdef0123456789', backfill: [], explain: [] },
    { name: 'mart.<img src=x onerror=alert(1)>', kind: 'FULL', change: 'added', build: true, backfill: [], explain: [] },
  ],
};

{
  const { dom, posted } = render('plan', plan, ['#apply', 'tr[data-model="mart.top"] a.model']);
  check(text(dom, 'title') === 'Plan for dev', 'the title names the environment', text(dom, 'title'));
  check(text(dom, 'summary') === '4 models change, 3 to build, 1 unchanged', 'the summary counts changes, builds and unchanged models', text(dom, 'summary'));
  const r = rows(dom);
  check(r.length === 4 && !r.some((x) => x.model === 'raw.orders'), 'one row per changed model; unchanged ones are not listed', r.map((x) => x.model).join(', '));
  const daily = r.find((x) => x.model === 'mart.daily')?.cells ?? [];
  check(daily[1] === 'breaking' && daily[2] === 'INCREMENTAL_BY_TIME_RANGE' && daily[3] === 'build', 'a breaking model: category, kind, build', daily.join(' | '));
  check(daily[4] === '3 (2026-01-01 .. 2026-01-04)', 'its intervals: the count and the backfill range', daily[4]);
  check(daily[0].includes('select_list[1]: sum(amount) -&gt; sum(amount) * 2'), 'the explanation is shown under the model', daily[0]);
  const top = r.find((x) => x.model === 'mart.top')?.cells ?? [];
  check(top[1] === 'indirect' && top[0].includes('because of mart.daily'), 'an indirect change names its cause', top.join(' | '));
  const wide = r.find((x) => x.model === 'mart.wide')?.cells ?? [];
  check(wide[3] === 'reuse abcdef01', 'a forward-only change reuses the physical table', wide.join(' | '));
  check(!/<img src="x"/i.test(dom) && dom.includes('mart.&lt;img src=x onerror=alert(1)&gt;'), 'a model name is text, never HTML');
  check(/<button id="apply"[^>]*>Apply to dev<\/button>/.test(dom), 'the Apply button names the environment');
  check(posted[0]?.type === 'ready', 'the page says it is ready first', JSON.stringify(posted));
  check(posted.some((m) => m.type === 'apply' && m.env === 'dev'), 'Apply posts apply for the environment', JSON.stringify(posted));
  check(/<button id="apply"[^>]*disabled/.test(dom) && text(dom, 'status') === 'applying to dev…', 'while applying, Apply is disabled and the status says so', text(dom, 'status'));
  check(posted.some((m) => m.type === 'open' && m.model === 'mart.top'), 'clicking a model asks to open it', JSON.stringify(posted));
  check(/Content-Security-Policy" content="default-src 'none';[^"]*script-src 'nonce-/.test(dom), 'the page runs under a strict CSP with a nonce');
}

{
  const upToDate = { env: 'prod', hasChanges: false, summary: '', models: [{ name: 'raw.orders', kind: 'SEED', change: 'unchanged', build: false }] };
  const { dom, posted } = render('uptodate', upToDate, ['#apply']);
  check(text(dom, 'summary') === 'prod is up to date: nothing to apply', 'an empty plan says the environment is up to date', text(dom, 'summary'));
  check(/<button id="apply"[^>]*disabled[^>]*>Apply to prod<\/button>/.test(dom), 'with nothing to apply, Apply is disabled');
  check(!posted.some((m) => m.type === 'apply'), 'a disabled Apply posts nothing', JSON.stringify(posted));
  check(/<table id="table" hidden/.test(dom), 'no table without changes');
  check(/<button id="apply"[^>]*class="prod"/.test(dom), 'Apply to prod is marked as production');
}

console.log(`\nwebview: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
