/**
 * The package as a user gets it: `npm run package` (plain `vsce package`) makes a .vsix under
 * 2 MB with its icon, and the real ovsx client publishes it to a stand-in for open-vsx.org that
 * checks it as that server does (scripts/openVsx.ts: the server's checks are a simulation,
 * written from its source). The stand-in refuses what open-vsx.org would refuse.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { dryRunPublish, readZip, refusal } from '../../scripts/openVsx';
import { packageExtension } from '../../scripts/tools';

/** A zip of stored entries, each local header with `extra` bytes of extra field. */
function storedZip(entries: { name: string; data: Buffer; extra?: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data, extra = 0 } of entries) {
    const fileName = Buffer.from(name);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt32LE(crc32(data), 14);
    header.writeUInt32LE(data.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(fileName.length, 26);
    header.writeUInt16LE(extra, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    const local = Buffer.concat([header, fileName, Buffer.alloc(extra), data]);
    locals.push(local);
    centrals.push(Buffer.concat([central, fileName]));
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe('the published package', function () {
  this.timeout(300_000);
  let vsix: string;
  before(() => {
    vsix = packageExtension();
  });

  it("is under 2.5 MB (the bundles, and the README's one picture for the offline guide), with its icon, README and CHANGELOG", () => {
    const bytes = statSync(vsix).size;
    assert.ok(bytes < 2_500_000, `${bytes} bytes`);
    const names = readZip(readFileSync(vsix)).map((e) => e.name);
    for (const name of ['extension/media/icon.png', 'extension/readme.md', 'extension/changelog.md'])
      assert.ok(names.includes(name), name);
  });

  it('ovsx publishes it to a registry that checks it as open-vsx.org does', async () => {
    const { published, output } = await dryRunPublish(vsix);
    assert.ok(published, output);
    assert.match(output, /Published retained-outputs\.retained-outputs v\d+\.\d+\.\d+/);
  });

  it('the stand-in registry refuses what open-vsx.org refuses: a bad version, a control character, an extra field', () => {
    const entries = readZip(readFileSync(vsix)).map((e) => ({ name: e.name, data: e.data() }));
    const manifest = entries.find((e) => e.name === 'extension.vsixmanifest')!;
    const xml = manifest.data.toString('utf8');
    const withManifest = (text: string) =>
      storedZip(entries.map((e) => (e === manifest ? { name: e.name, data: Buffer.from(text) } : e)));
    assert.equal(refusal(storedZip(entries)), undefined, 'the same entries, stored: taken');
    assert.equal(
      refusal(withManifest(xml.replace(/(<Identity\b[^>]*\sVersion=")[^"]*"/, '$11.0"'))),
      'Invalid semantic version. See https://semver.org/.',
    );
    assert.match(
      refusal(withManifest(xml.replace(/<DisplayName>/, '<DisplayName>\u0007'))) ?? '',
      /Invalid characters found in field 'displayName'/,
    );
    assert.match(
      refusal(storedZip(entries.map((e) => (e === manifest ? { ...e, extra: 4 } : e)))) ?? '',
      /extra field/,
    );
    assert.match(refusal(Buffer.from('not a zip')) ?? '', /Could not read zip file/);
    // Cut short: the central directory points past what is there.
    const whole = storedZip(entries);
    assert.match(
      refusal(Buffer.concat([whole.subarray(0, 100), whole.subarray(-22)])) ?? '',
      /Could not read zip file/,
    );
  });
});
