// The efmesh side bar: the project's models by schema with their status in
// the active environment, and the environments of the state store. Both
// are fed by server commands (efmesh.models, efmesh.environments).
import * as vscode from 'vscode';
import { Session } from './session';

/** One model of efmesh.models. */
export interface TreeModel {
  name: string;
  schema: string;
  table: string;
  kind: string;
  uri: string;
  change?: string;
  build: boolean;
  intervals?: number;
}

interface ModelsResult {
  env: string;
  models: TreeModel[];
  problem?: string;
}

interface TreeEnvironment {
  name: string;
  models: number;
  current: boolean;
}

type ModelNode =
  | { type: 'root'; root: vscode.Uri; label: string }
  | { type: 'schema'; root: vscode.Uri; schema: string; models: TreeModel[] }
  | { type: 'model'; model: TreeModel; env: string }
  | { type: 'problem'; text: string };

/** statusText is a model's line in the tree: what a plan would do to it. */
export function statusText(m: TreeModel, env: string): string {
  if (!m.change) return '';
  const due = m.intervals ? `, ${m.intervals} interval${m.intervals === 1 ? '' : 's'}` : '';
  if (m.change === 'unchanged') return m.build ? `${env}: not built${due}` : due ? `${env}: ${due.slice(2)} due` : `${env}: up to date`;
  if (m.change === 'added') return `${env}: new${due}`;
  return `${env}: ${m.change}${m.build ? ', rebuild' : ''}${due}`;
}

function modelIcon(m: TreeModel): vscode.ThemeIcon {
  switch (m.change) {
    case undefined:
      return new vscode.ThemeIcon('question');
    case 'unchanged':
      return new vscode.ThemeIcon(m.build || m.intervals ? 'circle-outline' : 'pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'added':
      return new vscode.ThemeIcon('diff-added', new vscode.ThemeColor('gitDecoration.addedResourceForeground'));
    case 'breaking':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    default:
      return new vscode.ThemeIcon('diff-modified', new vscode.ThemeColor('gitDecoration.modifiedResourceForeground'));
  }
}

export class ModelsTree implements vscode.TreeDataProvider<ModelNode> {
  private readonly changed = new vscode.EventEmitter<ModelNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly session: Session) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: ModelNode): Promise<ModelNode[]> {
    const roots = this.session.roots;
    if (!this.session.client) return [];
    if (!node && roots.length > 1) {
      return roots.map((root) => ({ type: 'root', root, label: vscode.workspace.asRelativePath(root) }));
    }
    if (!node || node.type === 'root') {
      const root = node?.type === 'root' ? node.root : roots[0];
      if (!root) return [];
      let res: ModelsResult;
      try {
        res = await this.session.execute<ModelsResult>('efmesh.models', { root: root.fsPath, env: this.session.environment() });
      } catch (err) {
        return [{ type: 'problem', text: String((err as Error).message ?? err) }];
      }
      const bySchema = new Map<string, TreeModel[]>();
      for (const m of res.models) bySchema.set(m.schema, [...(bySchema.get(m.schema) ?? []), m]);
      const out: ModelNode[] = res.problem ? [{ type: 'problem', text: res.problem }] : [];
      for (const [schema, models] of bySchema) out.push({ type: 'schema', root, schema, models });
      return out;
    }
    if (node.type === 'schema') return node.models.map((model) => ({ type: 'model', model, env: this.session.environment() }));
    return [];
  }

  getTreeItem(node: ModelNode): vscode.TreeItem {
    switch (node.type) {
      case 'root':
        return Object.assign(new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded), { iconPath: new vscode.ThemeIcon('root-folder') });
      case 'schema': {
        const item = new vscode.TreeItem(node.schema, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon('database');
        item.description = `${node.models.length} model${node.models.length === 1 ? '' : 's'}`;
        item.contextValue = 'schema';
        return item;
      }
      case 'model': {
        const m = node.model;
        const item = new vscode.TreeItem(m.table, vscode.TreeItemCollapsibleState.None);
        item.id = `${m.uri}#${m.name}`;
        item.description = statusText(m, node.env);
        item.tooltip = `${m.name} (${m.kind})\n${statusText(m, node.env) || 'status unknown'}`;
        item.iconPath = modelIcon(m);
        item.resourceUri = vscode.Uri.parse(m.uri);
        item.contextValue = 'model';
        item.command = { command: 'efmesh.openModel', title: 'Open model', arguments: [m.uri] };
        return item;
      }
      case 'problem':
        return Object.assign(new vscode.TreeItem(node.text), { iconPath: new vscode.ThemeIcon('error') });
    }
  }
}

type EnvNode = { type: 'environment'; env: TreeEnvironment } | { type: 'problem'; text: string };

export class EnvironmentsTree implements vscode.TreeDataProvider<EnvNode> {
  private readonly changed = new vscode.EventEmitter<EnvNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly session: Session) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: EnvNode): Promise<EnvNode[]> {
    const root = this.session.roots[0];
    if (node || !root || !this.session.client) return [];
    try {
      const envs = await this.session.execute<TreeEnvironment[]>('efmesh.environments', { root: root.fsPath });
      return envs.map((env) => ({ type: 'environment', env }));
    } catch (err) {
      return [{ type: 'problem', text: String((err as Error).message ?? err) }];
    }
  }

  getTreeItem(node: EnvNode): vscode.TreeItem {
    if (node.type === 'problem') return Object.assign(new vscode.TreeItem(node.text), { iconPath: new vscode.ThemeIcon('error') });
    const e = node.env;
    const item = new vscode.TreeItem(e.name, vscode.TreeItemCollapsibleState.None);
    item.description = [e.current ? 'active' : '', e.models > 0 ? `${e.models} model${e.models === 1 ? '' : 's'}` : 'not applied yet']
      .filter(Boolean)
      .join(', ');
    item.iconPath = new vscode.ThemeIcon(e.current ? 'pass-filled' : 'circle-large-outline');
    item.contextValue = 'environment';
    item.tooltip = `efmesh environment ${e.name}`;
    return item;
  }
}
