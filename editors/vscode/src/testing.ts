// Unit tests in VS Code's Test Explorer: a TestController whose items are
// the project's test files and their tests, run by the server's
// efmesh.test command (the same code as `efmesh test`).
import * as vscode from 'vscode';
import { Session } from './session';

/** One result of efmesh.test. */
export interface UnitTestResult {
  name: string;
  file: string;
  model: string;
  passed: boolean;
  error?: string;
  columns?: string[];
  missing?: string[][];
  unexpected?: string[][];
}

interface TestReport {
  passed: number;
  failed: number;
  tests: UnitTestResult[];
}

/** failureText is the message of a failed test: its error or the row diff. */
export function failureText(t: UnitTestResult): string {
  if (t.error) return t.error;
  const row = (r: string[]) => r.map((c, i) => `${t.columns?.[i] ?? i}=${c}`).join('  ');
  const lines = [`${t.name} (${t.model}): the rows differ`];
  for (const r of t.missing ?? []) lines.push(`missing:    ${row(r)}`);
  for (const r of t.unexpected ?? []) lines.push(`unexpected: ${row(r)}`);
  return lines.join('\n');
}

export class UnitTests implements vscode.Disposable {
  readonly controller: vscode.TestController;

  constructor(private readonly session: Session) {
    const c = vscode.tests.createTestController('efmesh', 'efmesh unit tests');
    this.controller = c;
    c.resolveHandler = async () => {
      await this.discover();
    };
    c.refreshHandler = async () => {
      await this.discover();
    };
    c.createRunProfile('Run', vscode.TestRunProfileKind.Run, (req, token) => this.run(req, token), true);
  }

  dispose(): void {
    this.controller.dispose();
  }

  private async report(root: vscode.Uri, token?: vscode.CancellationToken, model?: string): Promise<TestReport> {
    return this.session.execute<TestReport>('efmesh.test', { root: root.fsPath, model }, token);
  }

  /**
   * discover lists the tests by running them: the server's test command
   * is the one place that knows the project's tests; a run is fast (in
   * memory DuckDB) and also gives the first results.
   */
  async discover(): Promise<void> {
    for (const root of this.session.roots) {
      if (!this.session.client) return;
      const report = await this.report(root).catch(() => undefined);
      if (report) this.sync(root, report.tests ?? []);
    }
  }

  /** sync makes the items mirror results: one item per file, its tests below. */
  private sync(root: vscode.Uri, results: UnitTestResult[]): Map<string, vscode.TestItem> {
    const byId = new Map<string, vscode.TestItem>();
    const files = new Map<string, UnitTestResult[]>();
    for (const t of results) files.set(t.file, [...(files.get(t.file) ?? []), t]);
    const keep = new Set<string>();
    for (const [file, tests] of files) {
      const uri = vscode.Uri.joinPath(root, ...file.split('/'));
      const id = uri.toString();
      keep.add(id);
      let item = this.controller.items.get(id);
      if (!item) {
        item = this.controller.createTestItem(id, file, uri);
        this.controller.items.add(item);
      }
      const names = new Set<string>();
      for (const t of tests) {
        const tid = `${id}#${t.name}`;
        names.add(tid);
        let ti = item.children.get(tid);
        if (!ti) {
          ti = this.controller.createTestItem(tid, t.name, uri);
          ti.description = t.model;
          item.children.add(ti);
        }
        byId.set(tid, ti);
      }
      item.children.forEach((ti) => {
        if (!names.has(ti.id)) item!.children.delete(ti.id);
      });
    }
    this.controller.items.forEach((it) => {
      if (it.uri && it.uri.toString().startsWith(root.toString()) && !keep.has(it.id)) this.controller.items.delete(it.id);
    });
    return byId;
  }

  private async run(req: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(req);
    try {
      const wanted = new Set<string>();
      const collect = (it: vscode.TestItem) => {
        if (it.children.size === 0) wanted.add(it.id);
        it.children.forEach(collect);
      };
      if (req.include) req.include.forEach(collect);
      const excluded = new Set((req.exclude ?? []).map((it) => it.id));
      for (const root of this.session.roots) {
        if (token.isCancellationRequested) break;
        const report = await this.report(root, token);
        const results = report.tests ?? [];
        const items = this.sync(root, results);
        for (const t of results) {
          const item = items.get(`${vscode.Uri.joinPath(root, ...t.file.split('/')).toString()}#${t.name}`);
          if (!item || excluded.has(item.id) || excluded.has(item.parent?.id ?? '')) continue;
          if (wanted.size > 0 && !wanted.has(item.id)) continue;
          run.started(item);
          if (t.passed) run.passed(item);
          else if (t.error) run.errored(item, new vscode.TestMessage(failureText(t)));
          else run.failed(item, new vscode.TestMessage(failureText(t)));
        }
      }
    } catch (err) {
      run.appendOutput(`efmesh: ${String((err as Error).message ?? err)}\r\n`);
    } finally {
      run.end();
    }
  }
}
