// Headless client test of the language server the extension starts.
//
// VS Code itself does not run here, so this drives `efmesh lsp` with the
// protocol library vscode-languageclient is built on
// (vscode-languageserver-protocol/node), through the requests the extension
// depends on: initialize, didOpen, diagnostics, hover, the efmesh.* commands
// the extension's commands call, the editor features on a macro call
// (diagnostics at the call with related information, the unknown macro's
// quick fix, hover, definition, completion, references, rename), and
// shutdown.
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

  await macros();

  // shutdown / exit.
  await request(lsp.ShutdownRequest.type, undefined, 'shutdown');
  conn.sendNotification(lsp.ExitNotification.type);
  const end = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 5000))]);
  check(end !== null && end.code === 0, 'shutdown + exit: the server exits 0', JSON.stringify(end));
}

// Macros: a project macro in macros/time.sql and two models that call it,
// made as a user makes them (written, seen by the file watcher, opened).
const MACRO_FILE = 'macros/time.sql';
const MACRO_TEXT = [
  "-- Whole hours from a to b; b is the stay's end unless given.",
  "MACRO hours_between(a, b := ended_at) AS date_diff('hour', @a, @b);",
  '',
].join('\n');
const STAY_HOURS = 'models/mart/stay_hours.sql';
const STAY_HOURS_TEXT = [
  'MODEL (',
  '  name mart.stay_hours,',
  '  kind VIEW,',
  "  description 'Whole hours of every stay'",
  ');',
  '',
  'SELECT stay_id, dept, @hours_between(started_at, ended_at) AS whole_hours',
  'FROM @ref(med.stays)',
  '',
].join('\n');
// med.cases has no ended_at: the macro's default names an unknown column.
const CASE_HOURS = 'models/mart/case_hours.sql';
const CASE_HOURS_TEXT = [
  'MODEL (',
  '  name mart.case_hours,',
  '  kind VIEW,',
  "  description 'Whole hours since each case moved last'",
  ');',
  '',
  'SELECT case_id, @hours_between(since) AS hours_here',
  'FROM @ref(med.cases)',
  '',
].join('\n');

function offsetOf(text, pos) {
  const lines = text.split('\n');
  let off = 0;
  for (let i = 0; i < pos.line; i++) off += lines[i].length + 1;
  return off + pos.character;
}

// applyEdits applies TextEdits to text, the last first.
function applyEdits(text, edits) {
  const sorted = [...edits].sort((a, b) => offsetOf(text, b.range.start) - offsetOf(text, a.range.start));
  for (const e of sorted) {
    text = text.slice(0, offsetOf(text, e.range.start)) + e.newText + text.slice(offsetOf(text, e.range.end));
  }
  return text;
}

// editsByUri flattens a WorkspaceEdit: its documentChanges when it has
// them (as VS Code, which supports them, reads it), else its changes.
function editsByUri(we) {
  const out = new Map();
  if (we?.documentChanges) {
    for (const dc of we.documentChanges) {
      if (dc.textDocument) out.set(dc.textDocument.uri, [...(out.get(dc.textDocument.uri) ?? []), ...dc.edits]);
    }
    return out;
  }
  for (const [u, es] of Object.entries(we?.changes ?? {})) out.set(u, [...(out.get(u) ?? []), ...es]);
  return out;
}

const relOf = (u) => path.relative(project, fileURLToPath(u)).split(path.sep).join('/');
const at = (loc) => `${relOf(loc.uri)}:${loc.range.start.line + 1}:${loc.range.start.character + 1}`;

async function macros() {
  const errorsIn = (u) => (diagnostics.get(u) ?? []).filter((d) => d.severity === lsp.DiagnosticSeverity.Error);
  const files = { [MACRO_FILE]: MACRO_TEXT, [STAY_HOURS]: STAY_HOURS_TEXT, [CASE_HOURS]: CASE_HOURS_TEXT };
  for (const [rel, t] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
    fs.writeFileSync(path.join(project, rel), t);
  }
  conn.sendNotification(lsp.DidChangeWatchedFilesNotification.type, {
    changes: Object.keys(files).map((rel) => ({ uri: uriOf(rel), type: lsp.FileChangeType.Created })),
  });
  const macroUri = uriOf(MACRO_FILE);
  const stayUri = uriOf(STAY_HOURS);
  const caseUri = uriOf(CASE_HOURS);
  let stayText = STAY_HOURS_TEXT;
  let version = 1;
  for (const [u, t] of [[stayUri, STAY_HOURS_TEXT], [caseUri, CASE_HOURS_TEXT]]) {
    conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri: u, languageId: 'sql', version, text: t } });
  }
  const change = (text) => {
    stayText = text;
    conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, { textDocument: { uri: stayUri, version: ++version }, contentChanges: [{ text }] });
  };
  const defAt = positionOf(MACRO_TEXT, 'MACRO hours_between', 'MACRO '.length);
  const defaultAt = positionOf(MACRO_TEXT, 'b := ended_at', 'b := '.length);

  // 1. An unknown column the macro's default brings into a model: the
  // error is at the call, with the definition as related information.
  const caseCall = positionOf(CASE_HOURS_TEXT, '@hours_between(since)');
  const isEndedAt = (d) => d.severity === lsp.DiagnosticSeverity.Error && d.message.includes('ended_at');
  const gotCase = await waitFor(() => errorsIn(caseUri).some(isEndedAt));
  check(gotCase, `macros: ${CASE_HOURS} gets an error naming the unknown column ended_at`, JSON.stringify(diagnostics.get(caseUri)));
  const caseDiag = errorsIn(caseUri).find(isEndedAt);
  if (caseDiag) {
    const r = caseDiag.range;
    console.log(`     ${CASE_HOURS}:${r.start.line + 1}:${r.start.character + 1}: ${caseDiag.code ?? ''}: ${caseDiag.message}`);
    check(r.start.line === caseCall.line && r.start.character === caseCall.character && r.end.line === caseCall.line
      && r.end.character === caseCall.character + '@hours_between(since)'.length,
    `macros: the error spans the call @hours_between(since) at ${caseCall.line + 1}:${caseCall.character + 1}`, JSON.stringify(r));
    const rel = (caseDiag.relatedInformation ?? []).find((ri) => ri.location.uri === macroUri);
    check(rel !== undefined, `macros: the error's related information points at ${MACRO_FILE}`, JSON.stringify(caseDiag.relatedInformation));
    if (rel) {
      console.log(`     related: ${at(rel.location)}: ${rel.message}`);
      check(rel.location.range.start.line === defaultAt.line && rel.location.range.start.character === defaultAt.character,
        `macros: the related location is ended_at in the definition (${defaultAt.line + 1}:${defaultAt.character + 1})`, JSON.stringify(rel.location.range));
    }
  }
  check(errorsIn(stayUri).length === 0, `macros: ${STAY_HOURS} has no errors`, JSON.stringify(diagnostics.get(stayUri)));

  // 2. An unknown macro: did you mean, and the quick fix.
  const typoText = STAY_HOURS_TEXT.replace('@hours_between(', '@hours_betwen(');
  change(typoText);
  const typoCall = positionOf(typoText, '@hours_betwen(');
  const isUnknownMacro = (d) => d.severity === lsp.DiagnosticSeverity.Error && d.message.includes('@hours_betwen');
  check(await waitFor(() => errorsIn(stayUri).some(isUnknownMacro)), 'macros: @hours_betwen gets an unknown-macro error', JSON.stringify(diagnostics.get(stayUri)));
  const typoDiag = errorsIn(stayUri).find(isUnknownMacro);
  if (typoDiag) {
    const r = typoDiag.range;
    console.log(`     ${STAY_HOURS}:${r.start.line + 1}:${r.start.character + 1}: ${typoDiag.code ?? ''}: ${typoDiag.message}`);
    check(r.start.line === typoCall.line && r.start.character === typoCall.character, `macros: the error is at the call (${typoCall.line + 1}:${typoCall.character + 1})`, JSON.stringify(r));
    check(typoDiag.message.includes('did you mean @hours_between'), 'macros: the error says did you mean @hours_between', typoDiag.message);
    const actions = await request(lsp.CodeActionRequest.type, { textDocument: { uri: stayUri }, range: r, context: { diagnostics: [typoDiag], only: ['quickfix'] } }, 'codeAction');
    const fix = (actions ?? []).find((a) => /hours_between/.test(a.title) && a.edit);
    check(fix !== undefined, 'macros: a quick fix offers @hours_between', JSON.stringify(actions));
    if (fix) {
      console.log(`     quick fix: ${fix.title}`);
      const fixed = applyEdits(stayText, editsByUri(fix.edit).get(stayUri) ?? []);
      check(fixed === STAY_HOURS_TEXT, 'macros: the quick fix rewrites the call to @hours_between(', fixed);
      change(fixed);
    }
  }
  if (stayText !== STAY_HOURS_TEXT) change(STAY_HOURS_TEXT);
  check(await waitFor(() => !errorsIn(stayUri).some(isUnknownMacro)), 'macros: the unknown-macro error clears once fixed', JSON.stringify(diagnostics.get(stayUri)));

  // 3. Hover on the call: the doc and the SQL it expands to.
  const onCall = positionOf(STAY_HOURS_TEXT, '@hours_between(', '@hours_be'.length);
  const hover = await request(lsp.HoverRequest.type, { textDocument: { uri: stayUri }, position: onCall }, 'hover');
  const hoverText = hover ? (typeof hover.contents === 'string' ? hover.contents : hover.contents.value ?? JSON.stringify(hover.contents)) : '';
  check(hoverText.includes('expands to'), 'macros: hover on the call says what it expands to', hoverText);
  check(hoverText.includes("date_diff('hour', started_at, ended_at)"), "macros: hover shows the expansion date_diff('hour', started_at, ended_at)", hoverText);
  check(hoverText.includes("Whole hours from a to b; b is the stay's end unless given."), "macros: hover shows the macro's doc comment", hoverText);
  if (hoverText) console.log('     ' + hoverText.split('\n').join('\n     '));

  // 4. Definition: the macro's name in its file.
  const def = await request(lsp.DefinitionRequest.type, { textDocument: { uri: stayUri }, position: onCall }, 'definition');
  const defs = (Array.isArray(def) ? def : def ? [def] : []).map((l) => (l.targetUri ? { uri: l.targetUri, range: l.targetSelectionRange } : l));
  check(defs.length === 1 && defs[0].uri === macroUri && defs[0].range.start.line === defAt.line && defs[0].range.start.character === defAt.character,
    `macros: definition of the call is ${MACRO_FILE}:${defAt.line + 1}:${defAt.character + 1}`, JSON.stringify(def));

  // 5. Completion after @hou.
  const partial = STAY_HOURS_TEXT.replace('@hours_between(', '@hou(');
  change(partial);
  const items = await request(lsp.CompletionRequest.type, { textDocument: { uri: stayUri }, position: positionOf(partial, '@hou(', '@hou'.length) }, 'completion');
  const list = Array.isArray(items) ? items : items?.items ?? [];
  const item = list.find((i) => i.label === 'hours_between');
  check(item !== undefined, 'macros: completion after @hou offers hours_between', JSON.stringify(list.map((i) => i.label)));
  check(item && (item.textEdit?.newText ?? item.insertText ?? item.label) === 'hours_between', 'macros: the completion inserts hours_between', JSON.stringify(item));
  change(STAY_HOURS_TEXT);

  // 6. References: the definition and every call; rename: all of them.
  const refs = await request(lsp.ReferencesRequest.type, { textDocument: { uri: stayUri }, position: onCall, context: { includeDeclaration: true } }, 'references');
  const got = (refs ?? []).map(at).sort();
  const want = [
    `${MACRO_FILE}:${defAt.line + 1}:${defAt.character + 1}`,
    `${STAY_HOURS}:${onCall.line + 1}:${onCall.character - '@hours_be'.length + 2}`,
    `${CASE_HOURS}:${caseCall.line + 1}:${caseCall.character + 2}`,
  ].sort();
  check(JSON.stringify(got) === JSON.stringify(want), `macros: references are the definition and both calls (${want.join(', ')})`, JSON.stringify(got));
  const we = await request(lsp.RenameRequest.type, { textDocument: { uri: stayUri }, position: onCall, newName: 'hours_from' }, 'rename');
  const byUri = editsByUri(we);
  const renamed = {
    [MACRO_FILE]: applyEdits(MACRO_TEXT, byUri.get(macroUri) ?? []),
    [STAY_HOURS]: applyEdits(STAY_HOURS_TEXT, byUri.get(stayUri) ?? []),
    [CASE_HOURS]: applyEdits(CASE_HOURS_TEXT, byUri.get(caseUri) ?? []),
  };
  check(byUri.size === 3, 'macros: rename edits the macro file and both models', JSON.stringify([...byUri.keys()].map(relOf)));
  check(renamed[MACRO_FILE] === MACRO_TEXT.replace('MACRO hours_between(', 'MACRO hours_from('), 'macros: rename renames the definition', renamed[MACRO_FILE]);
  check(renamed[STAY_HOURS] === STAY_HOURS_TEXT.replace('@hours_between(', '@hours_from(')
    && renamed[CASE_HOURS] === CASE_HOURS_TEXT.replace('@hours_between(', '@hours_from('), 'macros: rename renames every call', JSON.stringify(renamed));
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

