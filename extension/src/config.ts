/**
 * Settings flow: package.json schema → this module → the server. One place reads the
 * `retained.*` configuration and turns it into the server's options, checked by the same
 * validator the server uses, so a bad combination is refused with the reason before it is sent.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { check } from '../../shared/check';
import { ServerOptions } from '../../shared/protocol';
import {
  CleanupSchema,
  GuardSchema,
  HistoryPolicySchema,
  resolveSettings,
  SettingsSchema,
} from '../../shared/settings';
import { STORE_DIR } from '../../shared/storeDir';

export const SECTION = 'retained';

/** The server options from the current configuration; throws an InvalidInput naming the problem. */
export function readServerOptions(sessionsRoot?: string): ServerOptions {
  const config = vscode.workspace.getConfiguration(SECTION);
  // Every setting the schema declares, read by its name: `retained.<field>`, `retained.<group>.<field>`.
  const read = (keys: readonly string[], prefix = '') =>
    Object.fromEntries(
      keys.flatMap((key) => (config.get(prefix + key) === undefined ? [] : [[key, config.get(prefix + key)]])),
    );
  const groups = { history: HistoryPolicySchema, cleanup: CleanupSchema, guard: GuardSchema };
  const settings = {
    ...read(Object.keys(SettingsSchema.shape).filter((key) => !(key in groups))),
    ...Object.fromEntries(
      Object.entries(groups).map(([group, schema]) => [group, read(Object.keys(schema.shape), `${group}.`)]),
    ),
  };
  const root = config.get<string>('storeRoot')?.trim();
  const url = config.get<string>('storeUrl')?.trim();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return {
    settings: resolveSettings(settings, SECTION),
    ...(sessionsRoot ? { sessionsRoot } : {}),
    ...(url ? { storeUrl: check(ServerOptions.shape.storeUrl, url, `${SECTION}.storeUrl`) } : {}),
    ...(root ? { storeRoot: path.isAbsolute(root) || !folder ? root : path.join(folder, root) } : {}),
  };
}

/** This machine's store as the server opens it: the setting, else `.retained` in the workspace (a team store is beside it). */
export function storeRootOf(options: ServerOptions): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return options.storeRoot ?? path.join(folder ?? process.cwd(), STORE_DIR);
}
