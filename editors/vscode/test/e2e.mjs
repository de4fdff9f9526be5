// Headless client test of the language server the extension starts.
//
// VS Code itself does not run here, so this drives `efmesh lsp` with the
// protocol library vscode-languageclient is built on
// (vscode-languageserver-protocol/node), through the requests the extension
// depends on: initialize, didOpen, diagnostics, hover, the efmesh.* commands
// the extension's commands call, and shutdown.
//
//   EFMESH_BIN      the efmesh binary (default: efmesh on PATH)
//   EFMESH_PROJECT  a scratch copy of examples/hospital (default: a fresh
//                   copy in a temporary directory)
//
// Prints one line per assertion and exits non-zero when any fails.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const lsp = require('vscode-languageserver-protocol/node');

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = process.env.EFMESH_BIN || 'efmesh';
const ownProject = !process.env.EFMESH_PROJECT;
const project = process.env.EFMESH_PROJECT || copyExample();
const TIMEOUT = 20_000;

function copyExample() {
  const src = path.resolve(here, '../../../examples/hospital');
  const dst = fs.mkdtempSync(path.join(os.tmpdir(), 'efmesh-vscode-e2e-'));
  // Leave out what a local apply may have left in the example.
  const skip = new Set(['.efmesh', 'efmesh.duckdb', 'efmesh.duckdb.wal', 'lake']);
  fs.cpSync(src, dst, { recursive: true, filter: (p) => !skip.has(path.basename(p)) });
  return dst;
}

let passed = 0;
let failed = 0;
function check(ok, what, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${what}`);
  } else {
    failed++;
    console.log(`FAIL ${what}`);
    if (detail !== undefined) console.log('     ' + String(detail).split('\n').join('\n     '));
  }
  return ok;
}

const uriOf = (rel) => pathToFileURL(path.join(project, rel)).href;

// The server, and a connection to it.
const proc = spawn(bin, ['lsp'], { cwd: project, stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
proc.stderr.on('data', (b) => { stderr += b; });
const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
proc.on('error', (err) => {
  console.log(`FAIL start ${bin} lsp: ${err.message}`);
  process.exit(1);
});
const conn = lsp.createProtocolConnection(
  new lsp.StreamMessageReader(proc.stdout),
  new lsp.StreamMessageWriter(proc.stdin),
);

// What the server sends on its own.
const diagnostics = new Map(); // uri -> latest Diagnostic[]
const messages = [];
const progress = [];
let waiters = [];
function changed() {
  const still = [];
  for (const w of waiters) {
    if (w.pred()) w.resolve(true);
    else still.push(w);
  }
  waiters = still;
}
function waitFor(pred, ms = TIMEOUT) {
  if (pred()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const w = { pred, resolve };
    waiters.push(w);
    setTimeout(() => {
      waiters = waiters.filter((x) => x !== w);
      resolve(false);
    }, ms);
  });
}
conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
  diagnostics.set(p.uri, p.diagnostics);
  changed();
});
conn.onNotification(lsp.ShowMessageNotification.type, (p) => { messages.push(p.message); changed(); });
conn.onNotification(lsp.LogMessageNotification.type, () => {});
conn.onProgress(lsp.WorkDoneProgress.type, 'e2e-plan', (v) => { progress.push(v); changed(); });
// Requests from the server (progress tokens, watcher registration, lens
// refresh) get the empty answer VS Code gives them.
conn.onRequest(() => null);
conn.listen();

function timeout(p, ms, what) {
  return Promise.race([
    p,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  ]);
}
const request = (type, params, what) => timeout(conn.sendRequest(type, params), TIMEOUT, what);
const command = (name, arg, extra = {}) =>
  request(lsp.ExecuteCommandRequest.type, { command: name, arguments: [arg], ...extra }, name);

function positionOf(text, needle, offsetInNeedle = 0) {
  const i = text.indexOf(needle);
  if (i < 0) throw new Error(`${needle} not found`);
  const before = text.slice(0, i + offsetInNeedle).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length };
}

async function main() {
  console.log(`# efmesh lsp (${bin}) on ${project}`);

  // initialize / initialized.
  const init = await request(lsp.InitializeRequest.type, {
    processId: process.pid,
    clientInfo: { name: 'efmesh-e2e' },
    rootUri: pathToFileURL(project).href,
    workspaceFolders: [{ uri: pathToFileURL(project).href, name: 'hospital' }],
    initializationOptions: { environment: 'dev' },
    capabilities: {
      window: { workDoneProgress: true },
      workspace: { didChangeWatchedFiles: { dynamicRegistration: true }, workspaceFolders: true, configuration: true },
      textDocument: {
        synchronization: { didSave: true },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        publishDiagnostics: { relatedInformation: true },
      },
    },
  }, 'initialize');
  const caps = init.capabilities;
  check(caps.hoverProvider === true, 'initialize: hover provider');
  const commands = caps.executeCommandProvider?.commands ?? [];
  for (const c of ['efmesh.render', 'efmesh.plan', 'efmesh.apply', 'efmesh.lineage', 'efmesh.test', 'efmesh.models', 'efmesh.environments']) {
    check(commands.includes(c), `initialize: command ${c}`, JSON.stringify(commands));
  }
  const legend = caps.semanticTokensProvider?.legend;
  check(caps.semanticTokensProvider?.full === true && ['macro', 'class', 'property', 'enumMember', 'variable'].every((t) => legend?.tokenTypes?.includes(t)),
    'initialize: semantic tokens (full) with their legend', JSON.stringify(caps.semanticTokensProvider));
  check(caps.textDocumentSync?.change === lsp.TextDocumentSyncKind.Incremental, 'initialize: incremental sync');
  conn.sendNotification(lsp.InitializedNotification.type, {});

  // didOpen a model: it is clean.
  const rel = 'models/med/stays_by_dept.sql';
  const uri = uriOf(rel);
  const text = fs.readFileSync(path.join(project, rel), 'utf8');
  conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'sql', version: 1, text },
  });
  // A clean file gets no diagnostics; a code lens waits for the check.
  await request(lsp.CodeLensRequest.type, { textDocument: { uri } }, 'codeLens');
  const errorsIn = (u) => (diagnostics.get(u) ?? []).filter((d) => d.severity === lsp.DiagnosticSeverity.Error);
  check(errorsIn(uri).length === 0, `didOpen ${rel}: no errors`, JSON.stringify(diagnostics.get(uri)));

  // An unknown column, typed in: an error at its line and column.
  const before = 'avg(s.hours)';
  const at = positionOf(text, before, 'avg('.length);
  const typo = 'hourz';
  conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: { start: at, end: { line: at.line, character: at.character + 's.hours'.length } }, text: typo }],
  });
  const isUnknown = (d) => d.severity === lsp.DiagnosticSeverity.Error && d.message.includes(typo);
  const got = await waitFor(() => (diagnostics.get(uri) ?? []).some(isUnknown));
  const diag = (diagnostics.get(uri) ?? []).find(isUnknown);
  check(got, `didChange: an error names the unknown column ${typo}`, JSON.stringify(diagnostics.get(uri)));
  if (diag) {
    const r = diag.range;
    console.log(`     ${rel}:${r.start.line + 1}:${r.start.character + 1}: ${diag.code ?? ''}: ${diag.message}`);
    check(r.start.line === at.line && r.start.character === at.character, `diagnostic starts at ${at.line + 1}:${at.character + 1}`, JSON.stringify(r));
    check(r.end.line === at.line && r.end.character === at.character + typo.length, `diagnostic ends after ${typo}`, JSON.stringify(r));
    check(/did you mean.*"hours"/.test(diag.message), 'diagnostic suggests hours', diag.message);
  }

  // Fixed again: the error goes away.
  conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 3 },
    contentChanges: [{ text }],
  });
  check(await waitFor(() => !(diagnostics.get(uri) ?? []).some(isUnknown)), 'didChange: the error clears when fixed');

  // Hover on @ref(med.stays): the model and its columns.
  const refPos = positionOf(text, '@ref(med.stays)', '@ref(med.'.length + 1);
  const hover = await request(lsp.HoverRequest.type, { textDocument: { uri }, position: refPos }, 'hover');
  const hoverText = hover ? (typeof hover.contents === 'string' ? hover.contents : hover.contents.value ?? JSON.stringify(hover.contents)) : '';
  check(/med\.stays/.test(hoverText), 'hover on @ref(med.stays) names the model', hoverText);
  for (const col of ['stay_id', 'case_id', 'dept', 'started_at', 'ended_at', 'hours']) {
    check(hoverText.includes(col), `hover lists column ${col}`, hoverText);
  }
  if (hoverText) console.log('     ' + hoverText.split('\n').join('\n     '));

  // Code lenses run the commands the extension intercepts.
  const lenses = await request(lsp.CodeLensRequest.type, { textDocument: { uri } }, 'codeLens');
  const lensCommands = new Set((lenses ?? []).map((l) => l.command?.command));
  for (const c of ['efmesh.plan', 'efmesh.render', 'efmesh.lineage']) {
    check(lensCommands.has(c), `code lens runs ${c}`, JSON.stringify(lenses));
  }
  const lensArg = (lenses ?? []).find((l) => l.command?.command === 'efmesh.render')?.command.arguments?.[0] ?? {};
  check(lensArg.uri === uri && lensArg.model === 'med.stays_by_dept', 'code lens argument carries uri and model', JSON.stringify(lensArg));

  // efmesh.render, as Render model calls it.
  const sql = await command('efmesh.render', { uri, env: 'dev' });
  check(typeof sql === 'string' && /^\s*SELECT\b/i.test(sql), 'efmesh.render returns the SELECT', sql);
  check(typeof sql === 'string' && sql.includes('"dev__med"."stays"') && !sql.includes('@ref'), 'efmesh.render resolves @ref to the dev view', sql);
  const physical = await command('efmesh.render', { uri });
  check(typeof physical === 'string' && physical.includes('"_efmesh"'), 'efmesh.render without env reads the physical tables', physical);

  // efmesh.lineage, as the lineage view draws it.
  const graph = await command('efmesh.lineage', { uri });
  const ids = new Set((graph?.nodes ?? []).map((n) => n.id));
  check(graph?.root === 'med.stays_by_dept' && ids.has('med.stays') && ids.has('ref.departments'), 'efmesh.lineage: the model graph', JSON.stringify(graph));
  check((graph?.edges ?? []).every((e) => ids.has(e.from) && ids.has(e.to)), 'efmesh.lineage: every edge joins two nodes');
  const colGraph = await command('efmesh.lineage', { uri, column: 'floor' });
  check((colGraph?.nodes ?? []).some((n) => n.id === 'ref.departments.floor'), 'efmesh.lineage of a column reaches its source', JSON.stringify(colGraph));

  // efmesh.plan with a work-done token, as Plan environment calls it.
  const plan = await command('efmesh.plan', { uri, env: 'dev' }, { workDoneToken: 'e2e-plan' });
  check(plan?.env === 'dev' && plan.hasChanges === true && Array.isArray(plan.models) && typeof plan.summary === 'string', 'efmesh.plan returns the plan and its summary', JSON.stringify(plan));
  check(await waitFor(() => progress.some((p) => p.kind === 'end')), 'efmesh.plan reports progress on the given token', JSON.stringify(progress));

  // Semantic tokens of the open model, decoded with the legend.
  const st = await request(lsp.SemanticTokensRequest.type, { textDocument: { uri } }, 'semanticTokens');
  const lines = text.split('\n');
  const toks = [];
  for (let i = 0, line = 0, ch = 0; st && i + 4 < st.data.length; i += 5) {
    if (st.data[i] > 0) ch = 0;
    line += st.data[i];
    ch += st.data[i + 1];
    toks.push({ text: lines[line].slice(ch, ch + st.data[i + 2]), type: legend?.tokenTypes?.[st.data[i + 3]] });
  }
  const has = (t, type) => toks.some((x) => x.text === t && x.type === type);
  check(has('name', 'property') && has('kind', 'property'), 'semantic tokens: header properties', JSON.stringify(toks.slice(0, 12)));
  check(has('@ref', 'macro') && has('med.stays', 'class'), 'semantic tokens: @ref and the model it names', JSON.stringify(toks));
  check(toks.some((x) => x.type === 'variable'), 'semantic tokens: columns', JSON.stringify(toks));

  // The side bar's trees and the Test Explorer's source.
  const models = await command('efmesh.models', { uri, env: 'dev' });
  const stays = (models?.models ?? []).find((m) => m.name === 'med.stays_by_dept');
  check(stays?.schema === 'med' && stays.uri === uri && typeof stays.change === 'string', 'efmesh.models: the models by schema with their status', JSON.stringify(stays));
  const envs = await command('efmesh.environments', { uri });
  check(Array.isArray(envs) && envs.some((e) => e.name === 'dev' && e.current === true), 'efmesh.environments: the active environment is listed', JSON.stringify(envs));
  const tests = await command('efmesh.test', { uri });
  check(Array.isArray(tests?.tests) && tests.tests.every((t) => typeof t.name === 'string' && typeof t.file === 'string' && typeof t.passed === 'boolean'),
    'efmesh.test: results with name, file and outcome', JSON.stringify(tests));

  // efmesh.apply: never prod without confirm.
  let refused = '';
  try {
    await command('efmesh.apply', { uri, env: 'prod' });
  } catch (err) {
    refused = err.message;
  }
  check(/confirm/.test(refused), 'efmesh.apply to prod without confirm is refused', refused);

  // shutdown / exit.
  await request(lsp.ShutdownRequest.type, undefined, 'shutdown');
  conn.sendNotification(lsp.ExitNotification.type);
  const end = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 5000))]);
  check(end !== null && end.code === 0, 'shutdown + exit: the server exits 0', JSON.stringify(end));
}

try {
  await main();
} catch (err) {
  check(false, 'the session ran to its end', err.stack ?? err);
}
if (failed > 0 && stderr) console.log('# server log:\n' + stderr.split('\n').slice(-30).join('\n'));
conn.dispose();
if (proc.exitCode === null) proc.kill();
if (ownProject) fs.rmSync(project, { recursive: true, force: true });
console.log(`\nlanguage server e2e: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
