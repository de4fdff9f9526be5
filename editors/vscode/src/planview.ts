// The plan as a structured view: efmesh.plan's models with their category,
// build or reuse and intervals, and an Apply button that runs the same
// apply as the command (a confirmation for prod, unsaved files saved).
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { apply } from './deploy';
import { planPage } from './planpage';
import { CommandArgs, messageOf, PlanResult, Session } from './session';

type FromPage = { type: 'ready' } | { type: 'replan' } | { type: 'apply'; env: string } | { type: 'open'; model: string };

export class PlanPanel {
  private static current: PlanPanel | undefined;
  private args: CommandArgs = {};
  private plan: PlanResult | undefined;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly session: Session,
    private readonly onApplied: () => void,
  ) {
    panel.webview.onDidReceiveMessage((m: FromPage) => void this.onMessage(m));
    panel.onDidDispose(() => {
      if (PlanPanel.current === this) PlanPanel.current = undefined;
    });
  }

  /** show draws plan (made with args) in the one plan panel. */
  static show(session: Session, extensionUri: vscode.Uri, args: CommandArgs, plan: PlanResult, onApplied: () => void): void {
    if (!PlanPanel.current) {
      const media = vscode.Uri.joinPath(extensionUri, 'media');
      const panel = vscode.window.createWebviewPanel('efmesh.plan', 'efmesh plan', vscode.ViewColumn.Beside, {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [media],
      });
      const nonce = crypto.randomBytes(16).toString('base64');
      const uri = (f: string) => panel.webview.asWebviewUri(vscode.Uri.joinPath(media, f)).toString();
      panel.webview.html = planPage(panel.webview.cspSource, uri('plan.js'), uri('plan.css'), nonce);
      PlanPanel.current = new PlanPanel(panel, session, onApplied);
    }
    const p = PlanPanel.current;
    p.args = args;
    p.plan = plan;
    p.panel.title = `Plan: ${plan.env}`;
    p.panel.reveal(vscode.ViewColumn.Beside, true);
    void p.panel.webview.postMessage({ type: 'plan', plan });
  }

  private async replan(): Promise<void> {
    const plan = await this.session.execute<PlanResult>('efmesh.plan', this.args);
    this.plan = plan;
    await this.panel.webview.postMessage({ type: 'plan', plan });
  }

  private async onMessage(m: FromPage): Promise<void> {
    try {
      switch (m.type) {
        case 'ready':
          if (this.plan) await this.panel.webview.postMessage({ type: 'plan', plan: this.plan });
          return;
        case 'replan':
          return await this.replan();
        case 'apply':
          await apply(this.session, { ...this.args, env: m.env });
          this.onApplied();
          return await this.replan();
        case 'open': {
          const models = await this.session.execute<{ models: Array<{ name: string; uri: string }> }>('efmesh.models', {
            uri: this.args.uri,
            root: this.args.root,
            env: this.args.env,
          });
          const hit = models.models.find((x) => x.name === m.model);
          if (hit) await vscode.window.showTextDocument(vscode.Uri.parse(hit.uri), { viewColumn: vscode.ViewColumn.One });
          return;
        }
      }
    } catch (err) {
      await this.panel.webview.postMessage({ type: 'error', message: messageOf(err) });
    }
  }
}
