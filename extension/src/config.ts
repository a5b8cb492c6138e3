/**
 * Settings flow: package.json schema → this module → the server. One place reads the
 * `retained.*` configuration and turns it into the server's options, checked by the same
 * validator the server uses, so a bad combination is refused with the reason before it is sent.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { resolveSettings, type Settings } from '../../shared/settings';
import type { ServerOptions } from '../../server/src/protocol';

export const SECTION = 'retained';

/** The server options from the current configuration; throws an InvalidInput naming the problem. */
export function readServerOptions(): ServerOptions {
  const config = vscode.workspace.getConfiguration(SECTION);
  const settings: Partial<Settings> = {
    thresholdBytes: config.get<number>('thresholdBytes'),
    peekMaxLines: config.get<number>('peekMaxLines'),
    peekMaxBytes: config.get<number>('peekMaxBytes'),
    previewHeadLines: config.get<number>('previewHeadLines'),
    previewTailLines: config.get<number>('previewTailLines'),
    landmarkPatterns: config.get<Settings['landmarkPatterns']>('landmarkPatterns'),
    history: {
      keepRounds: config.get<number>('history.keepRounds') ?? 1,
      inlineMaxBytes: config.get<number>('history.inlineMaxBytes') ?? 1024,
      inputMaxBytes: config.get<number>('history.inputMaxBytes') ?? 1024,
      exemptTools: config.get<string[]>('history.exemptTools') ?? [],
    },
  };
  const root = config.get<string>('storeRoot')?.trim();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return {
    settings: resolveSettings(settings, SECTION),
    ...(root ? { storeRoot: path.isAbsolute(root) || !folder ? root : path.join(folder, root) } : {}),
  };
}
