/**
 * Many writers at once, as a team's MCP servers are: `writers` processes (four per run), 1,600
 * retains of 100 KB among them, into a team store in a real PostgreSQL and, in the same run, into a folder
 * store, and beside them `psql` processes inserting the same rows (100 KB each) into a table of
 * their own: the floor the database sets. The clock starts once every writer has its store open.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { setupScript } from '../helpers/setupScript';
import { tempDir } from '../helpers/tmp';

/** Values written in all, whatever the number of writers. */
const VALUES = 1600;
const VALUE_BYTES = 100 * 1024;

export interface WriterFigures {
  rate: number;
  p50: number;
  p99: number;
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The writer, bundled as the CLI is, so its figures are the store's and not a TypeScript loader's. */
async function bundledWriter(): Promise<string> {
  const dir = tempDir('retained-bench-writer-');
  const writer = join(dir, 'writer.js');
  await build({
    entryPoints: [join(__dirname, 'teamWriter.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: writer,
    external: ['pg-native'],
    logLevel: 'warning',
  });
  copyFileSync(join(__dirname, '../../dist/scanKernel.wasm'), join(dir, 'scanKernel.wasm'));
  return writer;
}

/** Starts `count` processes, each ready when it says so on stderr; then starts them all at once and times them. */
async function together(
  count: number,
  start: (i: number) => ReturnType<typeof spawn>,
): Promise<{ wallMs: number; outputs: string[] }> {
  const children = Array.from({ length: count }, (_, i) => start(i));
  const outputs = children.map(() => '');
  const ended = children.map(
    (child, i) =>
      new Promise<void>((done, fail) => {
        child.stdout!.on('data', (d: Buffer) => {
          outputs[i] = `${outputs[i] ?? ''}${d}`;
        });
        let err = '';
        child.stderr!.on('data', (d: Buffer) => (err += d));
        child.on('close', (code) => (code === 0 ? done() : fail(new Error(`writer ${i} exited ${code}: ${err}`))));
      }),
  );
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((ready, fail) => {
          let err = '';
          const listen = (d: Buffer) => {
            err += d;
            if (err.includes('ready\n')) {
              child.stderr!.off('data', listen);
              ready();
            }
          };
          child.stderr!.on('data', listen);
          child.on('close', (code) => fail(new Error(`exited ${code} before it was ready: ${err}`)));
        }),
    ),
  );
  const started = performance.now();
  for (const child of children) child.stdin!.end('go\n');
  await Promise.all(ended);
  return { wallMs: performance.now() - started, outputs };
}

async function writersInto(writer: string, address: string, writers: number): Promise<WriterFigures> {
  const { wallMs, outputs } = await together(writers, (w) =>
    spawn(process.execPath, [writer, address, `load-${Math.floor(w / 4)}`, String(w), String(VALUES / writers)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const latencies = outputs.flatMap((o) => JSON.parse(o) as number[]);
  return { rate: latencies.length / (wallMs / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** `writers` psql processes inserting VALUES rows of VALUE_BYTES among them with \copy: rows per second. */
async function psqlInserts(url: string, writers: number): Promise<number> {
  const psql = join(setupScript('setup-postgres.sh'), 'psql');
  const dir = tempDir('retained-bench-psql-');
  const file = join(dir, 'rows.tsv');
  writeFileSync(file, `${'x'.repeat(VALUE_BYTES)}\n`.repeat(VALUES / writers));
  const { wallMs } = await together(writers, () => {
    const child = spawn(
      'sh',
      [
        '-c',
        `echo ready >&2; read go; exec "$0" "$1" -q -v ON_ERROR_STOP=1 -c "$2"`,
        psql,
        url,
        `\\copy copied_rows (body) FROM '${file}'`,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    return child;
  });
  return VALUES / (wallMs / 1000);
}

/** Rows of the bench table, for 16 and 64 writers. */
export async function benchWriters(): Promise<string[][]> {
  const { startPostgres } = await import('../helpers/postgres');
  const pg = await startPostgres({ maxConnections: 400 });
  const out: string[][] = [];
  try {
    const { execFileSync } = await import('node:child_process');
    const CLI = join(__dirname, '../../dist/cli.js');
    execFileSync(process.execPath, [CLI, 'migrate', '--store', pg.url], { cwd: tempDir(), stdio: 'ignore' });
    await pg.sql('CREATE TABLE copied_rows (body text)');
    const writer = await bundledWriter();
    const f = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
    for (const writers of [16, 64]) {
      const folder = await writersInto(writer, join(tempDir('retained-bench-folder-writers-'), '.retained'), writers);
      const team = await writersInto(writer, pg.url, writers);
      const floor = await psqlInserts(pg.url, writers);
      out.push([
        `team store: ${writers} writers at once (4 per run), ${VALUES / writers} retains of 100 KB each`,
        `${f(VALUES)} values; goal ≥ 0.8× the folder store's rate, p99 ≤ 1.3× its p99`,
        `${f(team.rate)} values/s, p50 ${f(team.p50)} ms, p99 ${f(team.p99)} ms`,
        `folder store: ${f(folder.rate)} values/s, p50 ${f(folder.p50)} ms, p99 ${f(folder.p99)} ms; psql \\copy of the same rows: ${f(floor)} rows/s`,
        `${(team.rate / folder.rate).toFixed(2)}× the rate, ${(team.p99 / folder.p99).toFixed(2)}× the p99`,
      ]);
    }
  } finally {
    pg.stop();
  }
  return out;
}
