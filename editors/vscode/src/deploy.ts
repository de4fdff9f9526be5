// Plan environment, Apply to environment, Run model tests, and choosing
// the environment.
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { projectOf } from './server';
import { ApplyResult, CommandArgs, ENV_NAME, PlanResult, PROD, Session } from './session';

/** pickEnvironment asks for an environment; the active one comes first. */
export async function pickEnvironment(session: Session, placeHolder: string): Promise<string | undefined> {
  const active = session.environment();
  const names = [...new Set([active, 'dev', PROD])];
  const other = '$(edit) Other environment…';
  const items: vscode.QuickPickItem[] = names.map((n) => ({
    label: n,
    description: [n === active ? 'active' : '', n === PROD ? 'production' : ''].filter(Boolean).join(', '),
  }));
  items.push({ label: other });
  const pick = await vscode.window.showQuickPick(items, { placeHolder });
  if (!pick) return undefined;
  if (pick.label !== other) return pick.label;
  return vscode.window.showInputBox({
    prompt: 'Environment name',
    placeHolder: 'staging',
    validateInput: (v) => (ENV_NAME.test(v.trim()) ? undefined : 'lower case letters, digits and _, starting with a letter'),
  }).then((v) => v?.trim());
}

function stamp(): string {
  return new Date().toLocaleTimeString();
}

function planLines(plan: PlanResult): string[] {
  const lines = plan.summary.split('\n');
  const changed = plan.models.filter((m) => m.change !== 'unchanged' || m.build);
  if (changed.length > 0) {
    lines.push('');
    const width = Math.max(...changed.map((m) => m.name.length));
    for (const m of changed) {
      let line = `  ${m.name.padEnd(width)}  ${m.change}${m.build ? ', build' : ''}`;
      const backfill = m.backfill ?? [];
      if (backfill.length > 0) {
        line += `, backfill ${backfill.map(([a, b]) => `[${a.slice(0, 10)} .. ${b.slice(0, 10)})`).join(' ')}`;
      }
      lines.push(line);
      for (const e of m.explain ?? []) lines.push(`      ${e}`);
    }
  }
  return lines;
}

/** plan plans an environment and logs it; it returns the plan and the arguments it was made with. */
export async function plan(session: Session, given?: CommandArgs): Promise<{ plan: PlanResult; args: CommandArgs } | undefined> {
  const target = given?.uri || given?.root ? { args: given } : await session.target();
  if (!target) return undefined;
  const env = given?.env || (await pickEnvironment(session, 'Plan which environment?'));
  if (!env) return undefined;
  const args = { ...target.args, env };
  const result = await session.withProgress<PlanResult>(`efmesh: plan ${env}`, 'efmesh.plan', args);
  session.log([`[${stamp()}] plan ${env}`, ...planLines(result), '']);
  return { plan: result, args };
}

export async function apply(session: Session, given?: CommandArgs): Promise<void> {
  const target = given?.uri || given?.root
    ? { args: given, root: undefined as vscode.Uri | undefined }
    : await session.target();
  if (!target) return;
  const env = given?.env || (await pickEnvironment(session, 'Apply to which environment?'));
  if (!env) return;

  // Apply builds what is on disk: offer to save the project's edited files.
  const dirty = vscode.workspace.textDocuments.filter(
    (d) => d.isDirty && projectOf(session.roots, d.uri) !== undefined,
  );
  if (dirty.length > 0) {
    const save = 'Save and apply';
    const names = dirty.map((d) => vscode.workspace.asRelativePath(d.uri)).join(', ');
    const choice = await vscode.window.showWarningMessage(
      `Apply builds what is saved. Save ${dirty.length === 1 ? names : `${dirty.length} files`} first?`,
      { modal: true, detail: names },
      save,
    );
    if (choice !== save) return;
    for (const d of dirty) await d.save();
  }

  const args: CommandArgs = { ...target.args, env };
  if (env === PROD) {
    // Production: show what would change and ask, modal, before anything.
    const planned = await session.withProgress<PlanResult>(`efmesh: plan ${env}`, 'efmesh.plan', args);
    session.log([`[${stamp()}] plan ${env}`, ...planLines(planned), '']);
    if (!planned.hasChanges) {
      vscode.window.showInformationMessage(`efmesh: ${env} is up to date; nothing to apply.`);
      return;
    }
    const yes = `Apply to ${PROD}`;
    const choice = await vscode.window.showWarningMessage(
      `Apply this plan to ${PROD}?`,
      { modal: true, detail: planned.summary },
      yes,
    );
    if (choice !== yes) return;
    args.confirm = true;
  }
  const result = await session.withProgress<ApplyResult>(`efmesh: apply ${env}`, 'efmesh.apply', args);
  const lines = [`[${stamp()}] apply ${env}`, ...result.summary.split('\n')];
  if (result.applied) {
    lines.push(`built (${result.built.length}): ${result.built.join(', ') || '-'}`);
    lines.push(`promoted (${result.promoted.length}): ${result.promoted.join(', ') || '-'}`);
    if (result.planId) lines.push(`plan id: ${result.planId}`);
  } else {
    lines.push('nothing applied');
  }
  session.log([...lines, '']);
}

/** One result of `efmesh test --json`. */
interface TestResult {
  name: string;
  file: string;
  model: string;
  passed: boolean;
  error?: string;
  columns?: string[];
  missing?: string[][];
  unexpected?: string[][];
}

/** modelName reads the model name from a MODEL (...) header. */
export function modelName(text: string): string | undefined {
  const header = /\bMODEL\s*\(([\s\S]*?)\)\s*;/i.exec(text);
  const name = header && /(?:^|[\s,(])name\s+([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)/i.exec(header[1]);
  return name?.[1].toLowerCase();
}

/**
 * runTests runs the unit tests of the model in the active editor (all of
 * a test file's tests when a test file is active; every test otherwise).
 * The server has no test command yet, so this runs `efmesh test --json`,
 * the same code path as the CLI.
 */
export async function runTests(session: Session, uri?: vscode.Uri): Promise<void> {
  const target = await session.target(uri);
  if (!target) return;
  const file = uri ?? vscode.window.activeTextEditor?.document.uri;
  const doc = file && vscode.workspace.textDocuments.find((d) => d.uri.toString() === file.toString());
  let filter: (t: TestResult) => boolean = () => true;
  let what = 'all tests';
  if (doc && file && target.args.uri) {
    const rel = session.relative(target.root, file);
    const model = file.path.endsWith('.sql') ? modelName(doc.getText()) : undefined;
    if (model) {
      filter = (t) => t.model === model;
      what = `tests of ${model}`;
    } else if (/\.ya?ml$/.test(file.path) && !rel.endsWith('efmesh.yaml')) {
      filter = (t) => t.file === rel;
      what = `tests in ${rel}`;
    }
  }
  if (!session.binary) throw new Error('the efmesh binary was not found');
  const binary = session.binary;
  const out = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `efmesh: ${what}`, cancellable: true },
    (_, cancel) =>
      new Promise<string>((resolve, reject) => {
        const child = execFile(
          binary,
          ['-C', target.root.fsPath, '--json', 'test'],
          { cwd: target.root.fsPath, maxBuffer: 64 << 20 },
          (err, stdout, stderr) => {
            // Exit 1 with JSON on stdout is "a test failed" or "the project has problems".
            if (stdout.trim().startsWith('{')) resolve(stdout);
            else reject(new Error((stderr || err?.message || 'efmesh test failed').trim()));
          },
        );
        cancel.onCancellationRequested(() => child.kill());
      }),
  );
  const report = JSON.parse(out) as {
    tests?: TestResult[];
    diagnostics?: Array<{ file: string; line: number; column: number; severity: string; message: string }>;
  };
  const lines = [`[${stamp()}] ${what}`];
  if (report.diagnostics) {
    for (const d of report.diagnostics) lines.push(`${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`);
    session.log([...lines, '']);
    throw new Error('the project has problems; see the Problems panel');
  }
  const tests = (report.tests ?? []).filter(filter);
  let failed = 0;
  for (const t of tests) {
    lines.push(`${t.passed ? 'PASS' : 'FAIL'} ${t.name} (${t.file}, ${t.model})`);
    if (t.passed) continue;
    failed++;
    if (t.error) lines.push(`  ${t.error}`);
    const row = (r: string[]) => r.map((c, i) => `${t.columns?.[i] ?? i}=${c}`).join('  ');
    for (const r of t.missing ?? []) lines.push(`  missing:    ${row(r)}`);
    for (const r of t.unexpected ?? []) lines.push(`  unexpected: ${row(r)}`);
  }
  const summary = `${tests.length - failed} passed, ${failed} failed`;
  session.log([...lines, summary, '']);
  if (tests.length === 0) {
    vscode.window.showInformationMessage(`efmesh: no ${what}.`);
  } else if (failed > 0) {
    vscode.window.showErrorMessage(`efmesh: ${what}: ${summary}.`);
  } else {
    vscode.window.showInformationMessage(`efmesh: ${what}: ${summary}.`);
  }
}
