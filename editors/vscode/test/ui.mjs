// The extension in a real VS Code: code-server (VS Code in a browser) with
// the packaged extension installed, driven in headless Chromium through
// its UI with playwright-core, on a scratch copy of examples/hospital.
// Each step is checked on what the workbench shows, and photographed.
//
//   CODE_SERVER_DIR=…  (scripts/install-code-server prints it)
//   EFMESH_VSIX=efmesh-linux-x64.vsix  EFMESH_PROJECT=scratch copy
//   EFMESH_BIN=efmesh (the CLI, to check what apply left)
//   EFMESH_ARTIFACTS=directory for the screenshots
//   node test/ui.mjs
//
// The extension runs the efmesh binary it ships: the vsix is a platform
// package, and efmesh is not on code-server's PATH.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from './chromium.mjs';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const need = (name) => {
  const v = process.env[name];
  if (!v) {
    console.log(`FAIL ${name} is set\n\nui: 0 passed, 1 failed`);
    process.exit(1);
  }
  return v;
};
const csDir = need('CODE_SERVER_DIR');
const vsix = path.resolve(need('EFMESH_VSIX'));
const project = path.resolve(need('EFMESH_PROJECT'));
const efmesh = need('EFMESH_BIN');
const artifacts = path.resolve(process.env.EFMESH_ARTIFACTS || path.join(os.tmpdir(), 'efmesh-ui'));
const browserName = findChromium('ui');
const browser = browserName.includes('/') ? browserName : execFileSync('sh', ['-c', `command -v ${browserName}`], { encoding: 'utf8' }).trim();
fs.mkdirSync(artifacts, { recursive: true });

let passed = 0;
let failed = 0;
const t0 = Date.now();
const stamp = () => `${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s`;
function check(ok, what, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? `\n     ${String(detail).slice(0, 2000)}` : ''}`);
  return ok;
}
const step = (what) => console.log(`---- [${stamp()}] ${what}`);

// The macro of step (g): a project macro and a model that calls it.
const MACRO_FILE = 'macros/time.sql';
fs.mkdirSync(path.join(project, 'macros'), { recursive: true });
fs.writeFileSync(path.join(project, MACRO_FILE), [
  "-- Whole hours from a to b; b is the stay's end unless given.",
  "MACRO hours_between(a, b := ended_at) AS date_diff('hour', @a, @b);",
  '',
].join('\n'));
fs.writeFileSync(path.join(project, 'models/mart/stay_hours.sql'), [
  'MODEL (',
  '  name mart.stay_hours,',
  '  kind VIEW,',
  "  description 'Whole hours of every stay'",
  ');',
  '',
  'SELECT stay_id, dept, @hours_between(started_at, ended_at) AS whole_hours',
  'FROM @ref(med.stays)',
  '',
].join('\n'));

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'efmesh-code-server-'));
const userData = path.join(home, 'data');
const extensions = path.join(home, 'extensions');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'git.enabled': false,
  'editor.minimap.enabled': false,
  'editor.hover.delay': 200,
  'files.autoSave': 'off',
  'window.restoreWindows': 'none',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  // Step (d) saves a model typed in lower case: the server formats it.
  'efmesh.formatOnSave': true,
}, null, 2));

const node = path.join(csDir, 'node', 'bin', 'node');
const entry = path.join(csDir, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
// code-server's environment: efmesh is not on its PATH, so the extension
// can only run the binary it ships.
const env = {
  ...process.env,
  PATH: [path.dirname(node), '/usr/local/bin', '/usr/bin', '/bin'].filter((d) => !fs.existsSync(path.join(d, 'efmesh'))).join(':'),
  XDG_CONFIG_HOME: path.join(home, 'config'),
  XDG_DATA_HOME: path.join(home, 'share'),
};
const common = ['--user-data-dir', userData, '--extensions-dir', extensions];

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitHttp(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      if (r.ok) return true;
    } catch {
      // not yet up
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

let server;
let chrome;
// A run stopped from outside (timeout) takes code-server, which runs in a
// process group of its own, with it.
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    try {
      if (server) process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    console.log(`\nui: ${passed} passed, ${failed + 1} failed (stopped by ${sig})`);
    process.exit(1);
  });
}
let page;
let shot = 0;
async function screenshot(name) {
  shot++;
  const file = path.join(artifacts, `${String(shot).padStart(2, '0')}-${name}.png`);
  try {
    await page.screenshot({ path: file });
  } catch (err) {
    console.log(`     (no screenshot ${name}: ${err.message})`);
  }
  return file;
}

// poll retries fn until it returns a truthy value or ms pass.
async function poll(fn, ms, every = 250) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch {
      // retry
    }
    if (Date.now() > end) return last;
    await new Promise((r) => setTimeout(r, every));
  }
}

const quickInput = () => page.locator('.quick-input-widget');

// palette runs a command by its title from the command palette.
async function palette(title) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await quickInput().waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type(title, { delay: 5 });
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
}

// openFile opens rel (relative to the project) with Quick Open.
async function openFile(rel) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+P');
  await quickInput().waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type(rel, { delay: 5 });
  const base = path.basename(rel);
  // The row of that very file: recently opened files come first, and a
  // fuzzy match of the path may be another file.
  const exact = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
  await row.waitFor({ state: 'visible', timeout: 15000 });
  await row.click();
  await page.locator('.tab.active', { hasText: base }).waitFor({ state: 'visible', timeout: 15000 });
  await page.locator('.part.editor .monaco-editor .view-lines').first().waitFor({ state: 'visible', timeout: 10000 });
}

// goTo puts the cursor of the active editor at line:column (1-based).
async function goTo(line, column) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+G');
  await quickInput().waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type(`${line}:${column}`, { delay: 5 });
  await page.keyboard.press('Enter');
  await quickInput().waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
}

// hoverAt shows the hover at line:column and returns its text.
async function hoverAt(line, column, want) {
  return poll(async () => {
    await goTo(line, column);
    await palette('Show or Focus Hover');
    const hover = page.locator('.monaco-hover:visible .hover-contents, .monaco-hover:visible .rendered-markdown').first();
    await hover.waitFor({ state: 'visible', timeout: 5000 });
    const text = await poll(async () => {
      const t = await page.locator('.monaco-hover:visible').first().innerText();
      return want.test(t) ? t : undefined;
    }, 5000);
    return text;
  }, 30000, 500);
}

// notification waits for a notification toast whose text matches re.
async function notification(re, ms) {
  return poll(async () => {
    const texts = await page.locator('.notifications-toasts .notification-list-item, .notifications-center .notification-list-item').allInnerTexts();
    return texts.find((t) => re.test(t));
  }, ms, 500);
}

// webviewFrame finds the frame of a webview whose page has selector.
async function webviewFrame(selector, ms) {
  return poll(async () => {
    for (const f of page.frames()) {
      if (f === page.mainFrame()) continue;
      if ((await f.locator(selector).count().catch(() => 0)) > 0) return f;
    }
    return undefined;
  }, ms, 500);
}

try {
  step(`installing ${path.basename(vsix)} into code-server`);
  const installed = execFileSync(node, [entry, ...common, '--install-extension', vsix], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  check(/successfully installed/.test(installed), `code-server installs ${path.basename(vsix)}`, installed);
  const shipped = fs.readdirSync(extensions).find((d) => d.startsWith('efmesh.efmesh-'));
  check(shipped && fs.statSync(path.join(extensions, shipped, 'bin', 'efmesh')).mode & 0o111, 'the installed extension holds an executable bin/efmesh', shipped);

  const port = await freePort();
  step(`starting code-server on 127.0.0.1:${port}`);
  const log = fs.openSync(path.join(artifacts, 'code-server.log'), 'w');
  server = spawn(node, [entry, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', '--disable-getting-started-override', '--ignore-last-opened', project], { env, stdio: ['ignore', log, log], detached: true });
  check(await waitHttp(`http://127.0.0.1:${port}/healthz`, 60000), 'code-server answers /healthz');

  chrome = await chromium.launch({ executablePath: browser, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const context = await chrome.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(20000);
  step('opening the project in the workbench');
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(project)}`, { waitUntil: 'domcontentloaded', timeout: 120000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 120000 });
  const statusItem = await poll(async () => {
    const t = await page.locator('.statusbar').innerText();
    return /efmesh: dev/.test(t) ? t : undefined;
  }, 60000, 500);
  check(statusItem, 'the extension activates on the project: the status bar shows "efmesh: dev"');

  // (a) The Problems panel shows an unknown column typed into a model.
  step('(a) an unknown column in the Problems panel');
  const MODEL = 'models/med/stays_by_dept.sql';
  await openFile(MODEL);
  // Line 8: "SELECT s.dept, …": the cursor after s.dept, then one letter.
  await goTo(8, 14);
  await page.keyboard.type('x');
  await page.keyboard.press('Control+Shift+M');
  const problem = await poll(async () => {
    const rows = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
    return rows.find((r) => /deptx/.test(r));
  }, 30000, 500);
  await screenshot('problems-unknown-column');
  check(problem, 'the Problems panel lists the unknown column deptx', await page.locator('.markers-panel').innerText().catch((e) => e.message));
  check(problem && /Ln 8\b/.test(problem), 'the problem is at line 8, where the column was typed', problem);
  // Undo in the editor: the file is as on disk again, and the problem goes.
  await page.locator('.markers-panel .monaco-list-row', { hasText: 'deptx' }).first().click();
  await page.locator('.part.editor .monaco-editor').first().click({ position: { x: 400, y: 10 } }).catch(() => undefined);
  await page.keyboard.press('Control+Z');
  const cleared = await poll(async () => {
    const rows = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
    return !rows.some((r) => /deptx/.test(r));
  }, 30000, 500);
  check(cleared, 'undo: the problem leaves the panel');
  const dirty = await page.locator('.tab.active.dirty').count();
  check(dirty === 0, 'undo: the model is as on disk again (not dirty)');

  // (b) Hover over a column shows its lineage.
  step('(b) column hover with lineage');
  // Line 8: "… d.name AS department …": hover the output column department.
  const line8 = fs.readFileSync(path.join(project, MODEL), 'utf8').split('\n')[7];
  const colAt = line8.indexOf('department') + 3;
  const hover = await hoverAt(8, colAt, /lineage|ref\.departments/i);
  await screenshot('hover-column-lineage');
  check(hover && /department/.test(hover), 'hover on the column department describes it', hover);
  check(hover && /ref\.departments/.test(hover) && /name/.test(hover), 'the hover traces department to ref.departments.name', hover);

  // (g) A macro call's hover shows its expansion.
  step('(g) macro call hover with its expansion');
  await openFile('models/mart/stay_hours.sql');
  const macroHover = await hoverAt(7, 26, /expands to/);
  await screenshot('hover-macro-expansion');
  check(macroHover && /expands to/.test(macroHover), 'hover on @hours_between says what it expands to', macroHover);
  check(macroHover && macroHover.includes("date_diff('hour', started_at, ended_at)"), "the expansion is date_diff('hour', started_at, ended_at)", macroHover);

  // (e) The Models tree lists the models.
  step('(e) the Models tree');
  await palette('efmesh: Focus on Models View');
  const treeText = await poll(async () => {
    const t = await page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Models/ }) }).first().innerText();
    return ['stays_by_dept', 'stays', 'moves', 'departments', 'stay_hours', 'daily_census'].every((n) => t.includes(n)) ? t : undefined;
  }, 30000, 500);
  await screenshot('models-tree');
  check(treeText, 'the Models tree lists the models by schema (med, mart, raw, ref)', await page.locator('.sidebar').innerText().catch((e) => e.message));

  // (f) Test Explorer runs the unit tests.
  step('(f) Test Explorer runs the unit tests');
  await palette('Testing: Focus on Test Explorer View');
  const listed = await poll(async () => {
    const t = await page.locator('.test-explorer').innerText();
    return /stays\.yaml/.test(t) ? t : undefined;
  }, 30000, 500);
  check(listed, 'the Test Explorer lists tests/stays.yaml', await page.locator('.sidebar').innerText().catch((e) => e.message));
  await palette('Test: Run All Tests');
  const ran = await poll(async () => {
    const labels = await page.locator('.test-explorer .monaco-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
    const t = labels.join('\n');
    return /Passed/i.test(t) && !/Failed|Errored/i.test(t) ? t : undefined;
  }, 60000, 500);
  // Expand the file to show each test with its result.
  await page.locator('.test-explorer .monaco-list-row', { hasText: 'stays.yaml' }).first().click().catch(() => undefined);
  await page.keyboard.press('ArrowRight').catch(() => undefined);
  await poll(async () => (await page.locator('.test-explorer .monaco-list-row', { hasText: 'stays_are_stitched' }).count()) > 0, 5000);
  await screenshot('test-explorer');
  check(ran, 'Run All Tests: the unit tests pass in the Test Explorer', ran ?? (await page.locator('.test-explorer').innerText().catch((e) => e.message)));

  // (c) The code lens "apply dev" builds; the CLI then has nothing to do.
  step('(c) the "apply dev" code lens');
  await openFile(MODEL);
  const lens = page.locator('.codelens-decoration a', { hasText: /^apply dev$/ }).first();
  await lens.waitFor({ state: 'visible', timeout: 30000 });
  await screenshot('code-lens');
  await lens.click();
  const applied = await notification(/apply dev:/, 120000);
  await screenshot('applied-dev');
  check(applied && !/error|failed/i.test(applied), 'apply dev reports what it built', applied);
  const plan = execFileSync(efmesh, ['plan', 'dev'], { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  check(/No changes/.test(plan), '`efmesh plan dev` on the CLI then says "No changes"', plan);

  // (d) The plan view lists a breaking change with its blast radius.
  step('(d) format on save; the plan view: a breaking change and its blast radius');
  await openFile('models/med/stays.sql');
  const lines = fs.readFileSync(path.join(project, 'models/med/stays.sql'), 'utf8').split('\n');
  const where = lines.findIndex((l) => /^WHERE dept <> 'discharge'/.test(l));
  await goTo(where + 1, lines[where].length + 1);
  await page.keyboard.type(' and case_id is not null');
  await page.keyboard.press('Control+S');
  await poll(async () => (await page.locator('.tab.active.dirty').count()) === 0, 10000);
  const saved = await poll(async () => {
    const text = fs.readFileSync(path.join(project, 'models/med/stays.sql'), 'utf8');
    return /case_id/.test(text) ? text : undefined;
  }, 10000);
  check(saved && saved.includes("WHERE dept <> 'discharge' AND case_id IS NOT NULL"), 'efmesh.formatOnSave: the model is saved formatted (keywords upper case)',
    saved?.split('\n').find((l) => /case_id is|case_id IS/i.test(l)));
  await palette('efmesh: Plan environment');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'dev' }).first().waitFor({ state: 'visible', timeout: 15000 });
  await page.keyboard.type('dev');
  await page.keyboard.press('Enter');
  const frame = await webviewFrame('#models tr', 60000);
  let rows = [];
  if (frame) {
    rows = await poll(async () => {
      const r = await frame.locator('#models tr').evaluateAll((trs) => trs.map((tr) => ({
        model: tr.querySelector('a.model')?.textContent ?? '',
        change: tr.querySelector('.category')?.textContent ?? '',
        cause: tr.querySelector('.cause')?.textContent ?? '',
      })));
      return r.some((x) => x.model === 'med.stays' && x.change === 'breaking') ? r : undefined;
    }, 30000, 500) ?? [];
  }
  await screenshot('plan-view-breaking');
  // The model and its plan side by side, small enough for the README
  // (docs/code-server-plan.png).
  await page.screenshot({ path: path.join(artifacts, 'plan-view-readme.png'), clip: { x: 345, y: 35, width: 1095, height: 500 } }).catch(() => undefined);
  const table = rows.map((r) => `${r.model} ${r.change} ${r.cause}`).join('\n');
  check(rows.some((r) => r.model === 'med.stays' && r.change === 'breaking'), 'the plan view lists med.stays as breaking', table);
  const radius = rows.filter((r) => r.change === 'indirect' && /because of med\.stays/.test(r.cause)).map((r) => r.model);
  check(['med.stays_by_dept', 'mart.stay_hours', 'mart.longest_stays', 'mart.daily_census'].every((m) => radius.includes(m)),
    `its blast radius, each "because of med.stays": ${radius.join(', ')}`, table);
  const summary = frame ? await frame.locator('#summary').innerText().catch(() => '') : '';
  check(/\d+ models change, \d+ to build/.test(summary), `the plan view's summary: ${summary}`, summary);
} catch (err) {
  await screenshot('error').catch(() => undefined);
  check(false, 'the session ran to its end', err.stack ?? err);
} finally {
  if (chrome) await chrome.close().catch(() => undefined);
  if (server) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  // VS Code's logs (the extension host's, the efmesh output channels) go
  // with the screenshots.
  fs.cpSync(path.join(userData, 'logs'), path.join(artifacts, 'logs'), { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
}

console.log(`     screenshots: ${artifacts}`);
console.log(`\nui: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
