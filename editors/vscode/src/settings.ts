// The extension's settings beyond the binary and the environment: what the
// server reads (initializationOptions and workspace/didChangeConfiguration
// carry the whole "efmesh" section) and what the extension does itself.
import * as vscode from 'vscode';

/** The severities efmesh.yaml's lint: rules: take; the editor's setting takes the same. */
export const LINT_SEVERITIES = ['error', 'warn', 'info', 'off'] as const;

/** The lint part of the settings, as the server reads it. */
export interface LintSettings {
  enabled: boolean;
  rules: Record<string, string>;
}

/** previewLimit is the number of rows Preview rows reads (efmesh.preview.limit). */
export function previewLimit(): number {
  const n = vscode.workspace.getConfiguration('efmesh').get<number>('preview.limit', 20);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 10000) : 20;
}

/** formatOnSave tells whether models are formatted by the server as they are saved. */
export function formatOnSave(): boolean {
  return vscode.workspace.getConfiguration('efmesh').get<boolean>('formatOnSave', false);
}

/** lintSettings is efmesh.lint.enabled and efmesh.lint.rules, the unknown severities left out. */
export function lintSettings(): LintSettings {
  const c = vscode.workspace.getConfiguration('efmesh');
  const rules: Record<string, string> = {};
  for (const [id, sev] of Object.entries(c.get<Record<string, unknown>>('lint.rules', {}) ?? {})) {
    if (typeof sev === 'string' && (LINT_SEVERITIES as readonly string[]).includes(sev)) rules[id] = sev;
  }
  return { enabled: c.get<boolean>('lint.enabled', true), rules };
}

/** bindInServer: a Postgres project's bodies are checked by its server (a restart applies it). */
export function bindInServer(): boolean {
  return vscode.workspace.getConfiguration('efmesh').get<boolean>('bindInServer', false);
}

/** initializationOptions is what the server is started with. */
export function initializationOptions(environment: string): Record<string, unknown> {
  return { environment, bindInServer: bindInServer(), lint: lintSettings() };
}
