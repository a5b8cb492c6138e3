/**
 * A dry run of publishing to Open VSX: the real `ovsx` client publishes the .vsix to a stand-in
 * registry on 127.0.0.1, which refuses it as open-vsx.org would. open-vsx.org itself is not
 * reachable from here, so the server's checks are ours, written from its source
 * (eclipse/openvsx at 9cf4058d: ExtensionValidator, ExtensionProcessor,
 * PublishExtensionVersionHandler, SemanticVersion, TargetPlatform, ArchiveUtil): a simulation
 * of that server, named as one in what it prints. `npm run check:openvsx` runs it on the
 * package `npm run package` makes.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { ROOT } from './tools';

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const NAME = /^[\w\-+$~]+$/;
const TARGETS = [
  'win32-x64',
  'win32-ia32',
  'win32-arm64',
  'linux-x64',
  'linux-arm64',
  'linux-armhf',
  'alpine-x64',
  'alpine-arm64',
  'darwin-x64',
  'darwin-arm64',
  'web',
  'universal',
];
const ENTRY_MAX_BYTES = 32 * 1024 * 1024;
const UPLOAD_MAX_BYTES = 512 * 1024 * 1024;
/** Control, format, unassigned, private-use and line or paragraph separators; the joiner U+200D is allowed. */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cn}\p{Co}\u2028\u2029]/u;

interface Entry {
  name: string;
  extra: number;
  data: () => Buffer;
  size: number;
}

/** The entries of a zip, from its central directory. Throws when it is not one. */
export function readZip(zip: Buffer): Entry[] {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('Could not read zip file: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('Could not read zip file: a bad central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const [nameLength, extraLength, commentLength] = [28, 30, 32].map((o) => zip.readUInt16LE(at + o));
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength!);
    const localExtra = zip.readUInt16LE(local + 28);
    const start = local + 30 + zip.readUInt16LE(local + 26) + localExtra;
    const raw = zip.subarray(start, start + compressed);
    entries.push({
      name,
      extra: extraLength! + localExtra,
      size,
      data: () => (method === 0 ? raw : inflateRawSync(raw)),
    });
    at += 46 + nameLength! + extraLength! + commentLength!;
  }
  return entries;
}

const decode = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!);
const attribute = (xml: string, element: string, name: string) =>
  decode(new RegExp(`<${element}\\b[^>]*\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? '');
const element = (xml: string, name: string) =>
  decode(new RegExp(`<${name}\\b[^>]*>([^<]*)</${name}>`).exec(xml)?.[1] ?? '');
const property = (xml: string, id: string) =>
  decode(new RegExp(`<Property Id="${id.replace(/\./g, '\\.')}" Value="([^"]*)"`).exec(xml)?.[1] ?? '');

function validUrl(value: string): boolean {
  try {
    const url = new URL(value.replace(/^git\+/, ''));
    return !/^https?:$/.test(url.protocol) || url.host !== '';
  } catch {
    return false;
  }
}

/** What the registry says of a package: undefined when it takes it, else why not (as its messages say). */
export function refusal(vsix: Buffer): string | undefined {
  if (vsix.length > UPLOAD_MAX_BYTES)
    return `The extension package exceeds the size limit of ${UPLOAD_MAX_BYTES} bytes.`;
  // A zip cut short, or an entry that does not inflate, is refused as the server's reader refuses it.
  try {
    return checkEntries(readZip(vsix));
  } catch (err) {
    const message = (err as Error).message;
    return message.startsWith('Could not read zip file') ? message : `Could not read zip file: ${message}`;
  }
}

/** The server's checks of a package's entries, in the order it makes them. */
function checkEntries(entries: Entry[]): string | undefined {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const manifestEntry = byName.get('extension.vsixmanifest');
  if (!manifestEntry) return 'Entry not found: extension.vsixmanifest';
  const xml = manifestEntry.data().toString('utf8');
  const version = attribute(xml, 'Identity', 'Version');
  if (!version) return 'Version must not be empty.';
  if (['latest', 'pre-release', 'reviews'].includes(version)) return `The version string '${version}' is reserved.`;
  if (!SEMVER.test(version)) return 'Invalid semantic version. See https://semver.org/.';
  const packageEntry = byName.get('extension/package.json');
  if (!packageEntry) return 'Entry not found: extension/package.json';
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(packageEntry.data().toString('utf8'));
  } catch (err) {
    return `Invalid JSON format in extension/package.json: ${(err as Error).message}`;
  }
  for (const e of entries) if (e.size > ENTRY_MAX_BYTES) return `The file ${e.name} exceeds the size limit of 32 MiB.`;
  const name = attribute(xml, 'Identity', 'Id');
  if (!NAME.test(name) || name.length > 255) return `Invalid extension name: ${name}`;
  const problems: string[] = [];
  const target = attribute(xml, 'Identity', 'TargetPlatform') || 'universal';
  if (!TARGETS.includes(target)) problems.push(`Unsupported target platform '${target}'`);
  const text = (field: string, value: string, max: number) => {
    if (value.length > max) problems.push(`The field '${field}' exceeds the size limit of ${max} characters.`);
    if (FORBIDDEN.test(value.replace(/\u200d/g, ''))) problems.push(`Invalid characters found in field '${field}'.`);
  };
  text('displayName', element(xml, 'DisplayName'), 255);
  text('description', element(xml, 'Description'), 2048);
  for (const c of element(xml, 'Categories').split(',').filter(Boolean)) text('categories', c, 255);
  for (const k of element(xml, 'Tags').split(',').filter(Boolean)) text('keywords', k, 255);
  if (typeof manifest.license === 'string') text('license', manifest.license, 255);
  const links = 'Microsoft.VisualStudio.Services.Links.';
  for (const [field, id] of [
    ['homepage', `${links}Learn`],
    ['repository', `${links}Source`],
    ['bugs', `${links}Support`],
  ] as const) {
    const url = property(xml, id);
    if (url && (!validUrl(url) || url.length > 255)) problems.push(`Invalid URL in field '${field}': ${url}`);
  }
  if (manifest.markdown !== undefined && !['github', 'standard'].includes(String(manifest.markdown)))
    problems.push("Invalid 'markdown' value: expected 'github' or 'standard'");
  const color = property(xml, 'Microsoft.VisualStudio.Services.Branding.Color');
  text('galleryBanner.color', color, 16);
  const theme = property(xml, 'Microsoft.VisualStudio.Services.Branding.Theme');
  if (theme && !['dark', 'light'].includes(theme))
    problems.push("Invalid 'galleryBanner.theme': expected 'dark' or 'light'");
  if (problems.length === 1) return problems[0];
  if (problems.length > 1) return `Multiple issues were found in the extension metadata:\n${problems.join('\n')}`;
  // What the registry reads after it has answered: an entry with an "extra" field keeps the version inactive.
  const extra = entries.find((e) => e.extra > 0);
  if (extra) return `The entry ${extra.name} has an extra field: the registry marks the version potentially malicious.`;
  const icon = attribute(xml, 'Asset Type="Microsoft.VisualStudio.Services.Icons.Default"', 'Path');
  if (icon && !byName.has(icon)) return `Icon Entry not found: ${icon}`;
  return undefined;
}

/** Publishes `vsix` with the real ovsx client to the stand-in registry; resolves with what ovsx printed, and whether it published. */
export async function dryRunPublish(vsix: string): Promise<{ published: boolean; output: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://registry');
      const answer = (status: number, body: object) => {
        response.writeHead(status, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      // No version: ovsx then sends its token in the query, as to an older registry.
      if (request.method !== 'POST' || url.pathname !== '/api/-/publish') return answer(404, { error: 'Not found' });
      if (!url.searchParams.get('token') && !request.headers.authorization)
        return answer(400, { error: 'Invalid access token.' });
      const bytes = Buffer.concat(chunks);
      const refused = refusal(bytes);
      if (refused) return answer(400, { error: refused });
      const xml = readZip(bytes)
        .find((e) => e.name === 'extension.vsixmanifest')!
        .data()
        .toString('utf8');
      answer(201, {
        namespace: attribute(xml, 'Identity', 'Publisher'),
        name: attribute(xml, 'Identity', 'Id'),
        version: attribute(xml, 'Identity', 'Version'),
        targetPlatform: attribute(xml, 'Identity', 'TargetPlatform') || 'universal',
        success: 'It can take a couple minutes before the extension version is available',
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, 'node_modules/ovsx/bin/ovsx'), 'publish', vsix, '-r', `http://127.0.0.1:${port}`, '-p', 'dry-run'],
        { env: { ...process.env, OVSX_PAT: '', OVSX_REGISTRY_URL: '' } },
        (error, stdout, stderr) => resolve({ published: !error, output: `${stdout}${stderr}`.trim() }),
      );
    });
  } finally {
    server.close();
  }
}

if (require.main === module) {
  const vsix = process.argv[2] ?? join(ROOT, 'dist', 'retained-outputs.vsix');
  readFileSync(vsix); // a clear error when it is not there: run `npm run package` first
  void dryRunPublish(vsix).then(({ published, output }) => {
    console.log(output);
    console.log(
      published
        ? `Open VSX dry run: ovsx published ${vsix} to a stand-in registry that checks as open-vsx.org does (a simulation of its server).`
        : 'Open VSX dry run: refused.',
    );
    process.exitCode = published ? 0 : 1;
  });
}
