/**
 * The `retained` command line at a path that outlives the extension's updates. The extension's
 * own folder is named after its version (`…/retained-outputs-0.1.0/`), so a hook written with
 * that path would fail after the next update. On activation the bundled cli.js, the server
 * bundle it loads (server.js) and what that loads beside it (the scan kernel, the libraries in vendor/) are copied into the extension's global storage (`…/cli/`), again only when
 * the bundle changed; what Set Up writes names that copy.
 */
import { promises as fs } from 'node:fs';
import { basename, join } from 'node:path';
import type * as vscode from 'vscode';
import { CLI_FILES } from '../../shared/cliFiles';

/**
 * Copies the bundle into the stable folder unless the copy there is of this bundle (its version
 * and each file's size and time). Each file lands whole (written aside, then renamed), so a hook
 * running meanwhile starts either the old command line or the new one.
 */
export async function installCli(context: vscode.ExtensionContext): Promise<string> {
  const target = join(context.globalStorageUri.fsPath, 'cli');
  // The files the command line needs, side by side: itself, the scan kernel, and the libraries it loads on first use.
  const vendor = context.asAbsolutePath('dist/vendor');
  const files = [
    ...CLI_FILES.map((f) => context.asAbsolutePath(`dist/${f}`)),
    ...(await fs.readdir(vendor)).sort().map((name) => join(vendor, name)),
  ];
  const stamps = await Promise.all(files.map((file) => fs.stat(file)));
  const stamp = `${String(context.extension.packageJSON.version)} ${stamps.map((s) => `${s.size} ${Math.round(s.mtimeMs)}`).join(' ')}\n`;
  const marker = join(target, 'installed');
  const installed = await fs.readFile(marker, 'utf8').catch(() => undefined);
  if (installed === stamp) return join(target, 'cli.js');
  await fs.mkdir(join(target, 'vendor'), { recursive: true });
  for (const file of files) {
    const name = file.startsWith(vendor) ? join('vendor', basename(file)) : basename(file);
    const aside = join(target, `${name}.${process.pid}.tmp`);
    await fs.copyFile(file, aside);
    await fs.rename(aside, join(target, name));
  }
  await fs.writeFile(marker, stamp);
  return join(target, 'cli.js');
}
