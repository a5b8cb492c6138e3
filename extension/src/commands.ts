/**
 * Every command of the extension from one table over one context, as rust-analyzer's
 * `createCommands()`: its name after `retained.`, what it does given the context, and, for a
 * command that changes the store or an agent's configuration, what is off in an untrusted
 * workspace (it refuses, saying so). An error a command throws is shown once, here.
 */
import * as vscode from 'vscode';
import { agentCommands } from './agents';
import { cleanupCommands } from './cleanupCommands';
import { serverCommands } from './client';
import type { Ctx } from './ctx';
import { guideCommands } from './guide';
import { importCommands } from './importCommand';
import { inspectorCommands } from './inspector';
import { pasteCommands } from './paste';
import { runsCommands } from './runsTree';
import { sessionCommands } from './sessionsTree';
import { valueCommands } from './valueCommands';

export interface Command {
  /** The handler, made from the context; it gets the command's arguments (a tree node, a URI, a run id). */
  run(ctx: Ctx): (...args: never[]) => unknown;
  /** Refused in an untrusted workspace: what the message says is off. */
  untrusted?: string;
}
export type Commands = Record<string, Command>;

export function createCommands(): Commands {
  return {
    ...valueCommands,
    ...runsCommands,
    ...inspectorCommands,
    ...cleanupCommands,
    ...importCommands,
    ...sessionCommands,
    ...agentCommands,
    ...guideCommands,
    ...serverCommands,
    ...pasteCommands,
  };
}

export function registerCommands(ctx: Ctx, commands: Commands = createCommands()): vscode.Disposable[] {
  return Object.entries(commands).map(([name, command]) => {
    const run = command.run(ctx) as (...args: unknown[]) => unknown;
    return vscode.commands.registerCommand(`retained.${name}`, async (...args: unknown[]) => {
      if (command.untrusted && !ctx.isTrusted())
        return void vscode.window.showWarningMessage(
          `Retained Outputs: ${command.untrusted} in an untrusted workspace; trust the workspace to use it.`,
        );
      try {
        return await run(...args);
      } catch (err) {
        void vscode.window.showErrorMessage(`Retained Outputs: ${(err as Error).message}`);
      }
    });
  });
}
