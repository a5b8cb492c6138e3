/**
 * `npm run bench`: figures for docs/benchmarks.md, measured side by side in one run on this machine.
 * The server runs as a real process over stdio; every peek is a full protocol round trip.
 * Absolute times on shared machines are noisy: read the ratios.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { recordDemoRun } from '../../scripts/demoRun';
import { RetentionService } from '../../server/src/core/service';
import { FolderStore } from '../../server/src/core/store/folderStore';
import {
  AppendRequest,
  ImportRequest,
  InspectRequest,
  PeekRequest,
  ReplayRequest,
  RetainFileRequest,
  RetainRequest,
  RunSearchRequest,
  StatusRequest,
  TranscriptRequest,
  UsageRequest,
  ValuesRequest,
} from '../../shared/protocol';
import { BIG_RUN, recordBigRun } from '../helpers/bigRun';
import { writeBigSession } from '../helpers/bigSession';
import { SERVER_ARGS, ServerProcess } from '../helpers/serverProcess';
import { setupScript } from '../helpers/setupScript';
import { removeTempDirs, tempDir } from '../helpers/tmp';
import { type CompactionRow, compactionReruns } from './compaction';
import { contextEconomy, measureRetrievable, RETRIEVABLE } from './contextEconomy';
import { benchWriters } from './writers';

const MB = 1024 * 1024;
const rows: string[][] = [];

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function timeMs(run: () => unknown): number {
  const t0 = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function timeMsAsync(run: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Lines like a build log: numbered, varied, with a rare marker placed by the caller. */
function makeValue(bytes: number, markers: Record<number, string> = {}): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const line =
      markers[i] ??
      `${i.toString().padStart(8, '0')} INFO worker-${i % 17} processed item ${(i * 2654435761) % 1e9} in ${i % 97} ms`;
    parts.push(line);
    size += line.length + 1;
  }
  return `${parts.join('\n')}\n`;
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

/**
 * retained/retain of `text` as the server sees it: the request encoded before the clock starts
 * (a client's own JSON encoding is not the server's cost), written to a fresh server's stdin,
 * timed to its answer; with the server's peak memory.
 */
async function serverSideRetain(workspace: string, text: string): Promise<{ ms: number; peakBytes: number }> {
  const child = spawn(process.execPath, SERVER_ARGS, { stdio: ['pipe', 'pipe', 'ignore'] });
  const frame = (message: object) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));
    return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
  };
  const waiting = new Map<number, () => void>();
  let input = Buffer.alloc(0);
  child.stdout.on('data', (data: Buffer) => {
    input = Buffer.concat([input, data]);
    for (let end = input.indexOf('\r\n\r\n'); end !== -1; end = input.indexOf('\r\n\r\n')) {
      const length = Number(/Content-Length: (\d+)/i.exec(input.toString('latin1', 0, end))?.[1]);
      if (input.length < end + 4 + length) break;
      const message = JSON.parse(input.toString('utf8', end + 4, end + 4 + length)) as { id?: number };
      input = input.subarray(end + 4 + length);
      if (typeof message.id === 'number') waiting.get(message.id)?.();
    }
  });
  const send = (id: number, bytes: Buffer) =>
    new Promise<void>((resolve) => {
      waiting.set(id, resolve);
      child.stdin.write(bytes);
    });
  try {
    const rootUri = pathToFileURL(workspace).href;
    await send(
      1,
      frame({ id: 1, method: 'initialize', params: { processId: process.pid, rootUri, capabilities: {} } }),
    );
    child.stdin.write(frame({ method: 'initialized', params: {} }));
    const request = frame({
      id: 2,
      method: RetainRequest.method,
      params: { runId: 'raw', callId: 'c', tool: 'bench', text },
    });
    const ms = await timeMsAsync(() => send(2, request));
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return { ms, peakBytes: Number(kb?.[1]) * 1024 };
  } finally {
    child.kill('SIGKILL');
  }
}

async function benchRetain(workspace: string): Promise<void> {
  // A low threshold so that even the 1 KB result is retained (written, indexed, logged).
  const server = await ServerProcess.start({ workspace, settings: { thresholdBytes: 512, peekMaxBytes: 384 } });
  try {
    const sizes: [string, number, number][] = [
      ['1 KB', 1024, 200],
      ['100 KB', 100 * 1024, 50],
      ['10 MB', 10 * MB, 5],
      ['200 MB', 200 * MB, 1],
    ];
    for (const [label, bytes, repeats] of sizes) {
      const text = makeValue(bytes);
      const times: number[] = [];
      for (let i = 0; i < repeats; i++) {
        times.push(
          await timeMsAsync(() =>
            server.request(RetainRequest.type, {
              runId: 'bench-retain',
              callId: `r_${label.replace(' ', '')}_${i}`,
              tool: 'bench',
              // Each repeat its own bytes: an identical one would be linked, not written (blobs.ts).
              text: i === 0 ? text : `${i}${text.slice(String(i).length)}`,
            }),
          ),
        );
      }
      const median = percentile(times, 50);
      rows.push([
        'retain',
        label,
        `${fmt(Buffer.byteLength(text) / MB / (median / 1000), 1)} MB/s`,
        `p50 ${fmt(median)} ms over ${repeats}`,
        '',
      ]);
      if (bytes === 200 * MB) {
        // The same request encoded beforehand: the server's own part, and its memory.
        const raw = await serverSideRetain(tempDir('retained-bench-raw-'), text);
        const payload = Buffer.byteLength(text);
        // What any JSON-RPC client spends before a byte is sent: its JSON.stringify and UTF-8 encoding.
        const encoding = timeMs(() =>
          Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: RetainRequest.method, params: { text } })),
        );
        rows.push([
          "retain, the server's part (request encoded beforehand)",
          label,
          `${fmt(payload / MB / (raw.ms / 1000), 1)} MB/s, peak ${fmt(raw.peakBytes / MB, 0)} MB RSS`,
          `the round trip above: ${fmt(median, 0)} ms, of which the client's JSON encoding of the request alone: ${fmt(encoding, 0)} ms`,
          `peak ${fmt(raw.peakBytes / payload, 1)}× the payload`,
        ]);
        // The same result from a file (retained/retainFile): no text crosses the protocol.
        const file = join(tempDir('retained-bench-file-'), 'result.txt');
        writeFileSync(file, text);
        const fromFile = await timeMsAsync(() =>
          server.request(RetainFileRequest.type, {
            runId: 'bench-retain',
            callId: 'r_file',
            tool: 'bench',
            path: file,
          }),
        );
        rows.push([
          'retain from a file (retained/retainFile)',
          label,
          `${fmt(payload / MB / (fromFile / 1000), 1)} MB/s, round trip`,
          `retained/retain of the same text: ${fmt(median, 0)} ms`,
          `${fmt(median / fromFile, 1)}× faster`,
        ]);
      }
    }
  } finally {
    await server.stop();
  }
}

async function benchPeek(workspace: string): Promise<number> {
  const server = await ServerProcess.start({ workspace });
  try {
    const value = makeValue(200 * MB, { 1000000: 'NEEDLE-middle', 2000000: 'NEEDLE-late' });
    const retained = await server.request(RetainRequest.type, {
      runId: 'bench-peek',
      callId: 'big',
      tool: 'bench',
      text: value,
    });
    const file = fileURLToPath(retained.uri!);
    const lines = retained.lines;
    const positions: [string, number][] = [
      ['start', 1],
      ['middle', Math.floor(lines / 2)],
      ['end', lines - 99],
    ];
    for (const [where, start] of positions) {
      const end = start + 99;
      const peeks: number[] = [];
      for (let i = 0; i < 60; i++)
        peeks.push(await timeMsAsync(() => server.request(PeekRequest.type, { valueId: 'big', start, end })));
      const seds: number[] = [];
      for (let i = 0; i < 15; i++)
        seds.push(timeMs(() => execFileSync('sed', ['-n', `${start},${end}p;${end}q`, file], { maxBuffer: 64 * MB })));
      rows.push([
        'peek range (100 lines)',
        `200 MB, ${where}`,
        `p50 ${fmt(percentile(peeks, 50))} ms, p99 ${fmt(percentile(peeks, 99))} ms`,
        `sed -n: p50 ${fmt(percentile(seds, 50))} ms, p99 ${fmt(percentile(seds, 99))} ms`,
        `${fmt(percentile(seds, 50) / percentile(peeks, 50), 1)}× faster`,
      ]);
    }
    const queries: number[] = [];
    for (let i = 0; i < 10; i++)
      queries.push(await timeMsAsync(() => server.request(PeekRequest.type, { valueId: 'big', query: 'NEEDLE' })));
    const greps: number[] = [];
    for (let i = 0; i < 10; i++)
      greps.push(timeMs(() => execFileSync('grep', ['-F', '-n', 'NEEDLE', file], { maxBuffer: 64 * MB })));
    rows.push([
      'peek query (literal)',
      '200 MB, 2 hits',
      `p50 ${fmt(percentile(queries, 50))} ms, p99 ${fmt(percentile(queries, 99))} ms`,
      `grep -F -n: p50 ${fmt(percentile(greps, 50))} ms, p99 ${fmt(percentile(greps, 99))} ms`,
      `${fmt(percentile(greps, 50) / percentile(queries, 50), 2)}× grep's speed`,
    ]);
    return server.peakRssBytes();
  } finally {
    await server.stop();
  }
}

/**
 * The inspector on a 10,000-event run with three 50 MB results: its first page (outline and 100
 * rows, from a cold server) against reading the whole transcript over the protocol, which is
 * what an inspector without `retained/inspect` would have to do; and search against grep.
 */
async function benchInspector(): Promise<void> {
  const workspace = tempDir('retained-bench-inspector-');
  const transcript = await recordBigRun(workspace);
  const { runId } = BIG_RUN;
  const server = await ServerProcess.start({ workspace });
  try {
    // As the inspector opens it: the rows without waiting for figures, then the figures.
    const firstRows = await timeMsAsync(() =>
      server.request(InspectRequest.type, { runId, from: 0, limit: 100, figures: false }),
    );
    const figuresAfter = await timeMsAsync(() => server.request(InspectRequest.type, { runId, limit: 0 }));
    const first = firstRows + figuresAfter;
    const pages: number[] = [];
    for (const from of [5000, 9900, 2000, 7000, 0])
      pages.push(await timeMsAsync(() => server.request(InspectRequest.type, { runId, from, limit: 100 })));
    const otherRequest = await timeMsAsync(() =>
      server.request(InspectRequest.type, { runId, modelCall: 2500, from: 4900, limit: 100 }),
    );
    // A live run: one more event appended, then the page the inspector fetches on retained/changed.
    await server.request(AppendRequest.type, { runId, event: { type: 'user', text: 'And now?' } });
    const afterAppend = await timeMsAsync(() => server.request(InspectRequest.type, { runId, from: 9900, limit: 100 }));
    const search = await timeMsAsync(() => server.request(RunSearchRequest.type, { runId, query: 'Step 1000.' }));
    const grep = timeMs(() => execFileSync('grep', ['-c', '-F', 'Step 1000.', transcript]));
    const whole = await timeMsAsync(() => server.request(TranscriptRequest.type, { runId }));
    const input = '10,000 events, 3 × 50 MB';
    rows.push([
      'inspector: first rows of a run never opened (no index, server just started)',
      input,
      `${fmt(firstRows, 0)} ms; its figures ${fmt(figuresAfter, 0)} ms after`,
      'goal: rows within 300 ms',
      firstRows <= 300 ? 'met' : 'not met',
    ]);
    rows.push([
      'inspector: first open of a run, rows and figures (no index yet, server just started)',
      input,
      `${fmt(first, 0)} ms`,
      `the whole transcript over the protocol: ${fmt(whole, 0)} ms`,
      `${fmt(first / whole, 1)}× its time`,
    ]);
    rows.push(['inspector: a page of 100 rows (warm)', input, `p50 ${fmt(percentile(pages, 50))} ms`, '', '']);
    rows.push(['inspector: the view of another request', input, `${fmt(otherRequest, 0)} ms`, '', '']);
    rows.push([
      'inspector: the last page after one event is appended',
      input,
      `${fmt(afterAppend, 0)} ms`,
      `first page from cold: ${fmt(first, 0)} ms`,
      `${fmt(first / afterAppend, 1)}× faster`,
    ]);
    rows.push([
      'inspector: search the run (literal: its events, and its three 50 MB values from disk)',
      input,
      `${fmt(search, 0)} ms`,
      `grep -c -F on the 2 MB transcript file alone: ${fmt(grep, 0)} ms`,
      `${fmt(search / grep, 1)}× its time`,
    ]);
    // A restarted server (VS Code reopened): the run's index, written by the first server, answers.
    await server.stop();
    const restarted = await ServerProcess.start({ workspace });
    try {
      const cold = await timeMsAsync(() => restarted.request(InspectRequest.type, { runId, from: 0, limit: 100 }));
      rows.push([
        'inspector: outline + first 100 rows, cold (server just started, from the run index)',
        input,
        `${fmt(cold, 0)} ms`,
        `first open: ${fmt(first, 0)} ms`,
        `1/${fmt(first / cold, 0)} of its time`,
      ]);
      // The copy of the run is read in the background for the pages that follow.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const next = await timeMsAsync(() => restarted.request(InspectRequest.type, { runId, from: 100, limit: 100 }));
      rows.push(['inspector: the next page, 3 s later (the run read meanwhile)', input, `${fmt(next, 0)} ms`, '', '']);
      rows.push([
        'server peak memory',
        'after a cold open of the big run and its next page',
        `${fmt(restarted.peakRssBytes() / MB, 0)} MB (VmHWM)`,
        '',
        '',
      ]);
    } finally {
      await restarted.stop();
    }
    // Where the tokens go, from a server just started: the run read and every call counted; then
    // from another just started, which reads what the first counted from the run index.
    for (const from of ['counted (no counts in the run index yet)', 'from the run index (the counts a server kept)']) {
      const fresh = await ServerProcess.start({ workspace });
      try {
        const before = fresh.peakRssBytes();
        const usage = await timeMsAsync(() => fresh.request(UsageRequest.type, { runId }));
        rows.push([
          `retained/usage: every model call by part, cache and cost (cold, server just started), ${from}`,
          input,
          `${fmt(usage, 0)} ms, peak ${fmt(fresh.peakRssBytes() / MB, 0)} MB RSS (${fmt(before / MB, 0)} MB before)`,
          `first open in the inspector: ${fmt(first, 0)} ms`,
          `${fmt(usage / first, 1)}× its time`,
        ]);
        // The index is written a second after the answer.
        await new Promise((resolve) => setTimeout(resolve, 2000));
      } finally {
        await fresh.stop();
      }
    }
  } finally {
    await server.stop();
  }
}

/** Writes `bytes` of build-log lines to `path` without holding them, with a marker line in the middle. */
async function writeLog(path: string, bytes: number, marker: string): Promise<void> {
  const out = createWriteStream(path);
  let size = 0;
  let i = 0;
  const middle = Math.floor(bytes / 2);
  let marked = false;
  while (size < bytes) {
    const lines: string[] = [];
    for (let k = 0; k < 10_000; k++) {
      i++;
      let line = `${i.toString().padStart(9, '0')} INFO worker-${i % 17} processed item ${(i * 2654435761) % 1e9} in ${i % 97} ms`;
      if (!marked && size >= middle) {
        marked = true;
        line = marker;
      }
      lines.push(line);
      size += line.length + 1;
    }
    if (!out.write(`${lines.join('\n')}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** Runs a process to its end, reading its peak memory (VmHWM) from /proc while it runs. */
async function measured(
  command: string,
  args: string[],
  options: { cwd?: string } = {},
): Promise<{ ms: number; peakBytes: number; stdout: string; code: number | null }> {
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.resume();
  let peak = 0;
  const poll = setInterval(() => {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (kb) peak = Math.max(peak, Number(kb[1]) * 1024);
    } catch {
      // gone
    }
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(poll);
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, peakBytes: peak, stdout, code };
}

const CLI = join(__dirname, '../../dist/cli.js');

/**
 * At the limits: a 1 GB command output streamed into a value by the command line (against `cp`
 * of the same bytes), a peek at its end (against `sed -n`), a literal search of it (against
 * `grep -F -n`); then a run holding a 500 MB retained result, read every way, each read in a
 * fresh server process with its peak memory.
 */
async function benchLimits(): Promise<void> {
  const dir = tempDir('retained-bench-limits-');
  const log = join(dir, 'build-1g.log');
  await writeLog(log, 1024 * MB, 'error: NEEDLE-IN-THE-MIDDLE');
  // Three of each, taken in turns: the page cache and the neighbours change what one run of cp gets.
  const copies: number[] = [];
  // The floor for a stream kept durably, with no work on it: the same bytes through a pipe into a file, fsynced.
  const piped: number[] = [];
  const runs: { ms: number; peakBytes: number; stdout: string }[] = [];
  const workspace = join(dir, 'ws');
  const copy = join(dir, 'copy.log');
  for (let i = 0; i < 3; i++) {
    copies.push((await measured('cp', [log, copy])).ms);
    rmSync(copy);
    piped.push((await measured('sh', ['-c', 'cat "$1" | cat > "$2" && sync "$2"', 'sh', log, copy])).ms);
    rmSync(copy);
    rmSync(workspace, { recursive: true, force: true });
    mkdirSync(workspace);
    runs.push(
      await measured(
        process.execPath,
        [CLI, '--store', join(workspace, '.retained'), 'run', '--run', 'big', '--', 'cat', log],
        { cwd: workspace },
      ),
    );
  }
  const id = /^\[retained #(\S+)\]/.exec(runs.at(-1)!.stdout)?.[1];
  if (!id) throw new Error(`no stub from retained run: ${runs.at(-1)!.stdout.slice(0, 200)}`);
  const mbps = (ms: number) => (1024 / (ms / 1000)).toFixed(0);
  const runMs = percentile(
    runs.map((r) => r.ms),
    50,
  );
  const copyMs = percentile(copies, 50);
  const pipedMs = percentile(piped, 50);
  rows.push(
    [
      'stream retain (CLI run -- cat), median of 3',
      '1 GB',
      `${mbps(runMs)} MB/s, peak ${fmt(Math.max(...runs.map((r) => r.peakBytes)) / MB, 0)} MB RSS (the most of the 3)`,
      `cp: ${mbps(copyMs)} MB/s (its 3: ${copies.map((ms) => mbps(ms)).join(', ')})`,
      `${fmt(copyMs / runMs, 2)}× cp's speed`,
    ],
    [
      'stream retain, against the same bytes piped into a file and fsynced',
      '1 GB',
      `${mbps(runMs)} MB/s`,
      `cat into cat into a file, then sync: ${mbps(pipedMs)} MB/s (its 3: ${piped.map((ms) => mbps(ms)).join(', ')})`,
      `${fmt(pipedMs / runMs, 2)}× its speed`,
    ],
  );

  const server = await ServerProcess.start({ workspace });
  const value = join(workspace, '.retained', 'runs', 'big.values', `${id}.txt`);
  try {
    const { lines } = await server
      .request(PeekRequest.type, { valueId: id, runId: 'big', start: 1, end: 1 })
      .then((a) => ({ lines: a.totalLines }));
    const start = lines - 99;
    const peeks: number[] = [];
    for (let i = 0; i < 30; i++)
      peeks.push(
        await timeMsAsync(() => server.request(PeekRequest.type, { valueId: id, runId: 'big', start, end: lines })),
      );
    const seds: number[] = [];
    for (let i = 0; i < 3; i++)
      seds.push(timeMs(() => execFileSync('sed', ['-n', `${start},${lines}p`, value], { maxBuffer: 64 * MB })));
    rows.push([
      'peek range (100 lines)',
      '1 GB, end',
      `p50 ${fmt(percentile(peeks, 50))} ms`,
      `sed -n: p50 ${fmt(percentile(seds, 50))} ms`,
      `1/${fmt(percentile(seds, 50) / percentile(peeks, 50), 0)} of sed's time`,
    ]);
    const searches: number[] = [];
    for (let i = 0; i < 3; i++)
      searches.push(
        await timeMsAsync(() =>
          server.request(PeekRequest.type, { valueId: id, runId: 'big', query: 'NEEDLE-IN-THE-MIDDLE' }),
        ),
      );
    const greps: number[] = [];
    for (let i = 0; i < 3; i++)
      greps.push(
        timeMs(() => execFileSync('grep', ['-F', '-n', 'NEEDLE-IN-THE-MIDDLE', value], { maxBuffer: 64 * MB })),
      );
    rows.push([
      'peek query (literal)',
      '1 GB, 1 hit',
      `p50 ${fmt(percentile(searches, 50), 0)} ms`,
      `grep -F -n: p50 ${fmt(percentile(greps, 50), 0)} ms`,
      `${fmt(percentile(searches, 50) / percentile(greps, 50), 2)}× grep's time`,
    ]);
  } finally {
    await server.stop();
  }

  // A run whose one result is 500 MB: every way of reading the run, each in a fresh server.
  const half = join(dir, 'build-500m.log');
  execFileSync('head', ['-c', String(500 * MB), log], {
    maxBuffer: 1024,
    stdio: ['ignore', openSync(half, 'w'), 'inherit'],
  });
  const runWorkspace = join(dir, 'ws500');
  mkdirSync(runWorkspace);
  await measured(
    process.execPath,
    [CLI, '--store', join(runWorkspace, '.retained'), 'run', '--run', 'r500', '--', 'cat', half],
    { cwd: runWorkspace },
  );
  const reads: [string, (s: ServerProcess) => Promise<unknown>][] = [
    ['search', (s) => s.request(RunSearchRequest.type, { runId: 'r500', query: 'NEEDLE' })],
    ['replay', (s) => s.request(ReplayRequest.type, { runId: 'r500', shape: 'anthropic', stats: true })],
    ['inspect', (s) => s.request(InspectRequest.type, { runId: 'r500', from: 0, limit: 100 })],
    ['transcript page', (s) => s.request(TranscriptRequest.type, { runId: 'r500', from: 0, limit: 100 })],
  ];
  for (const [what, read] of reads) {
    const reader = await ServerProcess.start({ workspace: runWorkspace });
    try {
      const ms = await timeMsAsync(() => read(reader));
      rows.push([
        `a run with one 500 MB result: ${what}`,
        '500 MB retained',
        `${fmt(ms, 0)} ms, peak ${fmt(reader.peakRssBytes() / MB, 0)} MB RSS`,
        '',
        '',
      ]);
    } finally {
      await reader.stop();
    }
  }
}

/**
 * The language server at rest: its resident memory 5 s after it started, in a folder with no
 * store and in one with a run whose index is current (nothing asked of it yet), then after the
 * first request that counts tokens (the tokenizer's table loaded).
 */
async function benchIdle(): Promise<void> {
  const idle = async (workspace: string) => {
    const server = await ServerProcess.start({ workspace });
    try {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      const rss = server.rssBytes();
      await server.request(UsageRequest.type, { runId: 'demo-run' }).catch(() => undefined);
      return { rss, counted: server.rssBytes() };
    } finally {
      await server.stop();
    }
  };
  const empty = await idle(tempDir('retained-bench-idle-'));
  const withRun = tempDir('retained-bench-idle-');
  await recordDemoRun(withRun);
  // A server that knew the run wrote its index; the next one starts with nothing to do.
  const first = await ServerProcess.start({ workspace: withRun });
  await first.request(InspectRequest.type, { runId: 'demo-run', from: 0, limit: 100 });
  await first.stop();
  const stored = await idle(withRun);
  const bare = await bareNodeRss();
  for (const [where, m] of [
    ['a folder with no store', empty],
    ['a store with one run, its index current', stored],
  ] as const)
    rows.push([
      'language server at rest: resident memory 5 s after start',
      where,
      `${fmt(m.rss / MB, 0)} MB; ${fmt(m.counted / MB, 0)} MB once a request counts tokens`,
      `node with nothing loaded: ${fmt(bare / MB, 0)} MB`,
      `+${fmt((m.rss - bare) / MB, 0)} MB`,
    ]);
}

/** The process a hook runs under, as the agent would be: its name, arguments and environment. */
interface Under {
  name: string;
  args?: string[];
  env?: Record<string, string>;
}

/**
 * bash's arguments to run `args` as its child, then `then`: the shell is named and argued as
 * `under` says (a hook reads its parent's command line), and stays the parent (never execs).
 */
function shellUnder(args: readonly string[], under: Under | undefined, then: string): string[] {
  const script = `n=$1; shift; "\${@:1:$n}"${then}`;
  return ['-c', script, under?.name ?? 'cpu', String(args.length), ...args, ...(under?.args ?? [])];
}

/**
 * The CPU time (user + system, seconds) a command took, as bash's `times` counts its children:
 * a Node process's start is mostly CPU, and the wall clock of a loaded machine says little.
 */
function cpuSeconds(args: readonly string[], stdin: string, under?: Under): number {
  const r = spawnSync('bash', shellUnder(args, under, ' >/dev/null; times'), {
    input: stdin,
    encoding: 'utf8',
    env: { ...process.env, ...under?.env },
  });
  const children = r.stdout.trim().split('\n')[1] ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(([, m, s]) => Number(m) * 60 + Number(s));
  return seconds.reduce((a, b) => a + b, 0);
}

/**
 * The hook every tool call runs (Claude Code's, Qwen Code's, Gemini CLI's AfterTool, Copilot CLI's), on a small output (left alone),
 * and Codex's, which rewrites each shell command before it runs:
 * against `node -e 0`, in turn (A B A B), the median of the pairs' ratios; and the same hook when
 * it must load the server bundle (`--guard`: a secret in a small output is withheld).
 */
async function benchHook(): Promise<void> {
  const input = JSON.stringify({
    session_id: 'bench',
    transcript_path: '/nonexistent/bench.jsonl',
    tool_name: 'Bash',
    tool_use_id: 'toolu_bench',
    tool_input: { command: 'ls' },
    tool_response: { stdout: 'README.md\npackage.json\nsrc\n', stderr: '', interrupted: false, isImage: false },
  });
  const qwen = JSON.stringify({
    hook_event_name: 'PostToolUse',
    session_id: 'bench',
    tool_name: 'run_shell_command',
    tool_call_id: 'call_bench',
    tool_input: { command: 'ls' },
    tool_response: { returnDisplay: 'README.md\npackage.json\nsrc\n' },
  });
  const gemini = JSON.stringify({
    hook_event_name: 'AfterTool',
    session_id: 'bench',
    tool_name: 'run_shell_command',
    tool_input: { command: 'ls' },
    tool_response: { llmContent: 'README.md\npackage.json\nsrc\n' },
  });
  const copilot = JSON.stringify({
    sessionId: 'bench',
    timestamp: 1,
    toolName: 'bash',
    toolArgs: { command: 'ls' },
    toolResult: { resultType: 'success', textResultForLlm: 'README.md\npackage.json\nsrc\n' },
  });
  // Codex's PreToolUse on a shell command it may rewrite (approvals off, as `codex exec` runs).
  const codex = JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 'bench',
    tool_name: 'Bash',
    tool_use_id: 'call_bench',
    permission_mode: 'bypassPermissions',
    cwd: tempDir('retained-bench-codex-'),
    tool_input: { command: 'make build' },
  });
  // Gemini CLI's BeforeTool on a shell command, under a process named as Gemini CLI in yolo mode
  // (it rewrites only where Gemini CLI would ask nothing), its home an empty folder.
  const geminiHome = tempDir('retained-bench-gemini-');
  const beforeTool = JSON.stringify({
    hook_event_name: 'BeforeTool',
    session_id: 'bench',
    cwd: geminiHome,
    tool_name: 'run_shell_command',
    tool_input: { command: 'make build' },
  });
  const geminiCli: Under = {
    name: '/usr/lib/gemini-cli/gemini',
    args: ['--yolo'],
    env: { GEMINI_CLI_HOME: geminiHome },
  };
  // The row measures a rewrite: the hook, run once as the row runs it, must answer one.
  const said = spawnSync('bash', shellUnder([process.execPath, CLI, 'hook', 'gemini'], geminiCli, '; exit $?'), {
    input: beforeTool,
    encoding: 'utf8',
    env: { ...process.env, ...geminiCli.env },
  });
  if (!said.stdout.includes('"hookEventName":"BeforeTool"'))
    throw new Error(`Gemini CLI's BeforeTool was not rewritten: ${said.stdout}${said.stderr}`);
  const PAIRS = 15;
  for (const [what, args, stdin, under] of [
    ['retained hook claude-code, a small output (left alone)', ['hook', 'claude-code'], input],
    ['retained hook qwen, a small output (left alone)', ['hook', 'qwen'], qwen],
    ['retained hook gemini, AfterTool on a small output (left alone)', ['hook', 'gemini'], gemini],
    ['retained hook copilot-cli, a small output (left alone)', ['hook', 'copilot-cli'], copilot],
    ['retained hook codex, a shell command rewritten (its own small bundle)', ['hook', 'codex'], codex],
    [
      'retained hook gemini, BeforeTool: a shell command rewritten (its own small bundle)',
      ['hook', 'gemini'],
      beforeTool,
      geminiCli,
    ],
    [
      'retained hook claude-code --guard, a small output (checked for secrets)',
      ['hook', 'claude-code', '--guard'],
      input,
    ],
  ] as const) {
    const ours: number[] = [];
    const bare: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const a = cpuSeconds([process.execPath, CLI, ...args], stdin, under);
      const b = cpuSeconds([process.execPath, '-e', '0'], '');
      ours.push(a);
      bare.push(b);
      ratios.push(a / Math.max(b, 0.001));
    }
    rows.push([
      what,
      `${PAIRS} runs each, in turn`,
      `CPU ${fmt(percentile(ours, 50), 3)} s (median)`,
      `node -e 0: ${fmt(percentile(bare, 50), 3)} s`,
      `${fmt(percentile(ratios, 50), 2)}× (median of the pairs)`,
    ]);
  }
}

/** The resident memory of a Node process that loads nothing, 5 s after it started. */
async function bareNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 6000)'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  child.kill();
  return kb ? Number(kb[1]) * 1024 : Number.NaN;
}

/** A run of 10,000 retained values: the first page of the tree, against listing them all. */
async function benchTree(): Promise<void> {
  const workspace = tempDir('retained-bench-tree-');
  const service = new RetentionService(join(workspace, '.retained'), {
    settings: { thresholdBytes: 512, peekMaxBytes: 384 },
  });
  await service.init();
  for (let i = 0; i < 10_000; i++)
    await service.retainer.retain({
      runId: 'many',
      callId: `c${i}`,
      tool: 'read_file',
      text: `value ${i}\n`.repeat(80),
    });
  service.dispose();
  const server = await ServerProcess.start({ workspace });
  try {
    const first = await timeMsAsync(() => server.request(ValuesRequest.type, { runId: 'many', limit: 200 }));
    const all = await timeMsAsync(async () => {
      for (let from = 0; from < 10_000; from += 1000)
        await server.request(ValuesRequest.type, { runId: 'many', from, limit: 1000 });
    });
    rows.push([
      'tree: expand a run (first 200 values)',
      '10,000 values',
      `${fmt(first, 0)} ms`,
      `all 10,000: ${fmt(all, 0)} ms`,
      `${fmt(all / first, 1)}× faster`,
    ]);
  } finally {
    await server.stop();
  }
}

/** A second identical 50 MB output (a re-read log) through the server: the disk it costs, by du. */
async function benchDedupe(): Promise<void> {
  const workspace = tempDir('retained-bench-dedupe-');
  const root = join(workspace, '.retained');
  const text = makeValue(50 * MB);
  const du = () => Number(execFileSync('du', ['-sb', root], { encoding: 'utf8' }).split('\t')[0]);
  const server = await ServerProcess.start({ workspace });
  try {
    await server.request(RetainRequest.type, { runId: 'first', callId: 'log', tool: 'Bash', text });
    const before = du();
    await server.request(RetainRequest.type, { runId: 'second', callId: 'log', tool: 'Bash', text });
    const grew = du() - before;
    rows.push([
      'the same output again, in another run',
      `${fmt(text.length / MB, 0)} MB`,
      `+${fmt(grew / 1024, 1)} KB on disk (du -sb): its transcript line, index and metadata`,
      `stored twice: +${fmt(text.length / MB, 0)} MB`,
      `${fmt(text.length / grew, 0)}× less`,
    ]);
  } finally {
    await server.stop();
  }
}

/**
 * Importing Claude Code sessions of 1, 10 and 50 MB (exact-format, every request rebuilt), each
 * into a fresh server: the time to its answer, the rate, the server's peak memory over what it
 * held before, and how long a status request waited while the 50 MB one imported; beside the
 * floor for any importer in Node: the same file read and every line JSON-parsed, in one process.
 */
async function benchImport(): Promise<void> {
  const dir = tempDir('retained-bench-import-');
  for (const mb of [1, 10, 50]) {
    const file = join(dir, `session-${mb}.jsonl`);
    const calls = await writeBigSession(file, mb * MB);
    const parse = await measured(process.execPath, [
      '-e',
      `const fs=require('fs');let n=0;for(const l of fs.readFileSync(${JSON.stringify(file)},'utf8').split('\\n'))if(l)JSON.parse(l),n++;console.log(n)`,
    ]);
    const server = await ServerProcess.start({ workspace: dir });
    try {
      const before = server.peakRssBytes();
      const waits: number[] = [];
      let answered = false;
      const started = Date.now();
      const importing = server.request(ImportRequest.type, { path: file }).then((r) => {
        answered = true;
        return r;
      });
      while (mb === 50 && !answered) {
        const t = Date.now();
        await server.request(StatusRequest.type, {});
        waits.push(Date.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
      const result = await importing;
      const ms = Date.now() - started;
      const peak = server.peakRssBytes();
      rows.push([
        `import a Claude Code session (${result.fidelity}, ${calls.toLocaleString('en-US')} model calls)`,
        `${mb} MB`,
        `${fmt(ms, 0)} ms, ${fmt(mb / (ms / 1000), 1)} MB/s, peak ${fmt(peak / MB, 0)} MB RSS (${fmt((peak - before) / (mb * MB), 1)}× the file over the ${fmt(before / MB, 0)} MB before)${waits.length ? `; retained/status meanwhile: at most ${Math.max(...waits)} ms over ${waits.length}` : ''}`,
        `read and JSON.parse of every line: ${fmt(parse.ms, 0)} ms, peak ${fmt(parse.peakBytes / MB, 0)} MB`,
        `${fmt(ms / parse.ms, 1)}× its time`,
      ]);
    } finally {
      await server.stop();
    }
  }
}

/**
 * The team store, in a real PostgreSQL started for the run, each figure beside its floor in the
 * same run: a 512 MB stream retained into it (`retained run`) against `psql \copy` of the same bytes
 * into a one-column table; a peek of 100 lines at the end of that value against the same peek
 * on a folder store; a cold inspect of the 10,000-event run against the folder store; and `push`
 * and `pull` of a 256 MB run. Many writers at once are writers.ts.
 */
async function benchTeam(): Promise<void> {
  const { startPostgres } = await import('../helpers/postgres');
  const pg = await startPostgres();
  const services: RetentionService[] = [];
  const open = async (where: string) => {
    const service = new RetentionService(where, { indexImports: false });
    await service.init();
    services.push(service);
    return service;
  };
  try {
    const dir = tempDir('retained-bench-team-');
    execFileSync(process.execPath, [CLI, 'migrate', '--store', pg.url], { cwd: dir, stdio: 'ignore' });
    const psql = join(setupScript('setup-postgres.sh'), 'psql');
    await pg.sql('CREATE TABLE copied (line text)');

    // 512 MB streamed in, against \copy of the same bytes (the team store checks a value's hash
    // in the database, in one bytea: a value of 1 GB or more is refused there, kept verbatim).
    const HUGE_MB = 512;
    const huge = join(dir, 'huge.log');
    await writeLog(huge, HUGE_MB * MB, 'error: the linker failed');
    const stream = await measured(
      process.execPath,
      [CLI, 'run', '--store', pg.url, '--run', 'huge', '--quiet', '--', 'cat', huge],
      { cwd: dir },
    );
    const copy = await measured(psql, [pg.url, '-q', '-c', `\\copy copied FROM '${huge}'`]);
    await pg.sql('TRUNCATE copied');
    rows.push([
      'team store: retained run streaming into it (staged, hashed, chunks of 1 MiB)',
      `${HUGE_MB} MB output`,
      `${fmt(stream.ms, 0)} ms, ${fmt(HUGE_MB / (stream.ms / 1000), 0)} MB/s, peak ${fmt(stream.peakBytes / MB, 0)} MB`,
      `psql \\copy into one text column: ${fmt(copy.ms, 0)} ms, ${fmt(HUGE_MB / (copy.ms / 1000), 0)} MB/s`,
      `${fmt(copy.ms / stream.ms, 2)}× \\copy's rate`,
    ]);

    // 100 lines at the end of it: the team value against the same bytes in a folder store.
    const team = await open(pg.url);
    const folder = await open(join(dir, '.retained'));
    const [teamValue] = await team.store.values.list('huge');
    const folderRun = await folder.retainer.retainFile({
      runId: 'huge',
      callId: teamValue!.valueId,
      tool: 'run_command',
      path: huge,
    });
    const peekAt = async (service: RetentionService, valueId: string) => {
      const { totalLines } = await service.values.peek({ valueId, runId: 'huge', start: 1, end: 1 });
      const times: number[] = [];
      for (let i = 0; i < 20; i++)
        times.push(await timeMsAsync(() => service.values.peek({ valueId, runId: 'huge', start: totalLines - 99 })));
      return percentile(times, 50);
    };
    const teamPeek = await peekAt(team, teamValue!.valueId);
    const folderPeek = await peekAt(folder, folderRun.valueId!);
    rows.push([
      'team store: peek of the last 100 lines (warm, p50 of 20)',
      `${HUGE_MB} MB value`,
      `${fmt(teamPeek)} ms`,
      `the same peek on a folder store: ${fmt(folderPeek)} ms`,
      `${fmt(teamPeek / folderPeek, 1)}× its time`,
    ]);

    // The inspector's cold open of the 10,000-event run, pushed to the team store.
    const inspectDir = tempDir('retained-bench-team-inspect-');
    await recordBigRun(inspectDir);
    execFileSync(process.execPath, [CLI, 'push', BIG_RUN.runId, '--store', pg.url], {
      cwd: inspectDir,
      stdio: 'ignore',
    });
    const coldInspect = async (where: string) => {
      const service = await open(where);
      return timeMsAsync(() => service.inspection.inspect({ runId: BIG_RUN.runId, from: 0, limit: 100 }));
    };
    const folderWhere = join(inspectDir, '.retained');
    // A folder store's cold open without the index file its server would have written.
    rmSync(folderStoreIndex(folderWhere), { force: true });
    const folderCold = await coldInspect(folderWhere);
    const teamCold = await coldInspect(pg.url);
    rows.push([
      'team store: inspector, first open of a run (cold, no index)',
      '10,000 events, 3 × 50 MB',
      `${fmt(teamCold, 0)} ms`,
      `a folder store, no index file: ${fmt(folderCold, 0)} ms`,
      `${fmt(teamCold / folderCold, 1)}× its time`,
    ]);

    // 32 `retained run` at once for a login with 12 connection slots: every output delivered, every value recorded exact.
    await pg.sql('CREATE ROLE slots12 LOGIN CONNECTION LIMIT 12; GRANT retained_writer TO slots12;');
    const slotsUrl = pg.urlAs('slots12');
    const command = 'seq 1 20000';
    const expected = execFileSync('sh', ['-c', command], { encoding: 'utf8' });
    const slotsStarted = Date.now();
    const outcomes = await Promise.all(
      Array.from(
        { length: 32 },
        (_, w) =>
          new Promise<{ out: string; err: string; code: number | null }>((done) => {
            const child = spawn(
              process.execPath,
              [CLI, 'run', '--store', slotsUrl, '--run', `slots-${w % 4}`, '--quiet', '--', command],
              { cwd: tempDir('retained-bench-slots-') },
            );
            let out = '';
            let err = '';
            child.stdout.on('data', (d: Buffer) => (out += d));
            child.stderr.on('data', (d: Buffer) => (err += d));
            child.on('close', (code) => done({ out, err, code }));
          }),
      ),
    );
    const slotsWall = Date.now() - slotsStarted;
    const stubbed = outcomes.filter((o) => o.out.startsWith('[retained #'));
    const verbatim = outcomes.filter((o) => o.out === expected);
    const sha = createHash('sha256').update(expected).digest('hex');
    const recorded = await pg.sql(
      `SELECT v.sha256 FROM run_values v JOIN blobs b USING (sha256) WHERE v.run_id LIKE 'slots-%' AND b.complete`,
    );
    rows.push([
      'team store: 32 retained run at once, 12 connection slots for the role (a 109 KB output each)',
      '32 commands',
      `${stubbed.length} recorded (a stub), ${verbatim.length} given as they came with the reason; ${outcomes.filter((o) => o.code === 0).length} exit 0; ${fmt(slotsWall, 0)} ms`,
      `${recorded.length} values in the team store, ${recorded.filter((r) => r.sha256 === sha).length} of them exact`,
      stubbed.length + verbatim.length === 32
        ? 'every output delivered'
        : `${32 - stubbed.length - verbatim.length} lost`,
    ]);

    // push and pull of a 256 MB run.
    const log = join(dir, 'build.log');
    await writeLog(log, 256 * MB, 'error: the linker failed');
    execFileSync(process.execPath, [CLI, 'run', '--run', 'big', '--quiet', '--', 'cat', log], {
      cwd: dir,
      stdio: 'ignore',
    });
    const push = await measured(process.execPath, [CLI, 'push', 'big', '--store', pg.url], { cwd: dir });
    const copy256 = await measured(psql, [pg.url, '-q', '-c', `\\copy copied FROM '${log}'`]);
    rows.push([
      'team store: retained push (chunks of 1 MiB, hashed, one transaction)',
      '256 MB value',
      `${fmt(push.ms, 0)} ms, ${fmt(256 / (push.ms / 1000), 0)} MB/s, peak ${fmt(push.peakBytes / MB, 0)} MB`,
      `psql \\copy into one text column: ${fmt(copy256.ms, 0)} ms, ${fmt(256 / (copy256.ms / 1000), 0)} MB/s`,
      `${fmt(copy256.ms / push.ms, 2)}× \\copy's rate`,
    ]);
    const there = tempDir('retained-bench-pull-');
    const pull = await measured(process.execPath, [CLI, 'pull', 'big', '--store', pg.url], { cwd: there });
    const cp = await measured('cp', [log, join(there, 'copy.log')]);
    rows.push([
      'team store: retained pull (each value checked by its hash)',
      '256 MB value',
      `${fmt(pull.ms, 0)} ms, peak ${fmt(pull.peakBytes / MB, 0)} MB`,
      `cp: ${fmt(cp.ms, 0)} ms`,
      `${fmt(pull.ms / cp.ms, 1)}× its time`,
    ]);
  } finally {
    for (const service of services) service.dispose();
    pg.stop();
  }
}

/** A folder store's index file of the big run (derived: removed for a cold open). */
/** Per compacted session in the fixtures: the calls after its compactions that did again what a retained output held. */
async function benchCompaction(): Promise<void> {
  const sessions = new Map<string, CompactionRow[]>();
  for (const row of await compactionReruns()) sessions.set(row.session, [...(sessions.get(row.session) ?? []), row]);
  for (const [session, compactions] of sessions) {
    const sum = (key: 'retainedBefore' | 'callsAfter' | 'again') => compactions.reduce((n, row) => n + row[key], 0);
    rows.push([
      `work done again after a compaction: ${session}`,
      `${compactions.length} compactions, ${sum('retainedBefore')} values retained before them, ${sum('callsAfter')} tool calls after them`,
      `${sum('again')} calls ran a command or read a file again whose output was retained; index at most ${Math.max(...compactions.map((row) => row.indexBytes))} bytes`,
      '',
      '',
    ]);
  }
}

function folderStoreIndex(root: string): string {
  return new FolderStore(root).runIndexPath(BIG_RUN.runId);
}

function markdownTable(header: string[], body: string[][]): string {
  return [header, header.map(() => '---'), ...body].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** `BENCH_ONLY=limits,tree npm run bench` runs just those sections. */
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (section: string) => !only || only.includes(section);

async function main(): Promise<void> {
  const workspace = tempDir('retained-bench-');
  if (wanted('economy')) {
    const tables = await contextEconomy();
    const retrievable = await measureRetrievable();
    const economy = [
      'Cumulative tokens sent over every request of the session (o200k_base):',
      '',
      markdownTable(['session', 'requests', ...tables.header], tables.cumulative),
      '',
      'Cumulative bytes sent (the same requests, as JSON):',
      '',
      markdownTable(['session', 'requests', ...tables.header], tables.bytes),
      '',
      'With prompt caching, as the Messages API bills it (the longest run of messages equal to the previous request read at 0.1×, the rest written at 1.25×): input billed, in input-token equivalents, and the share of input tokens read from the cache:',
      '',
      markdownTable(['session', 'requests', ...tables.header], tables.cached),
      '',
      `Requests sent before the history first passes a ${(200_000).toLocaleString('en-US')}-token window:`,
      '',
      markdownTable(['session', 'requests', ...tables.header], tables.window),
      '',
      'Share of elided content that can still be read back:',
      '',
      markdownTable(['policy', 'retrievable'], RETRIEVABLE),
      '',
      `Measured on the real transcripts: ${retrievable.readBack} of ${retrievable.references} references in the default projection read back with peek_value.`,
    ].join('\n');
    console.log(`${economy}\n`);
    mkdirSync('test-output', { recursive: true });
    writeFileSync(join('test-output', 'context-economy.md'), `${economy}\n`);
  }
  console.log('Retained Outputs benchmark (server over stdio, real files in a temp folder)\n');
  if (wanted('retain')) await benchRetain(workspace);
  if (wanted('peek')) {
    const peak = await benchPeek(workspace);
    rows.push(['server peak memory', 'after the 200 MB retain and peeks', `${fmt(peak / MB, 0)} MB (VmHWM)`, '', '']);
  }
  if (wanted('inspector')) await benchInspector();
  if (wanted('idle')) await benchIdle();
  if (wanted('tree')) await benchTree();
  if (wanted('dedupe')) await benchDedupe();
  if (wanted('limits')) await benchLimits();
  if (wanted('import')) await benchImport();
  if (wanted('team')) await benchTeam();
  if (wanted('writers')) rows.push(...(await benchWriters()));
  if (wanted('hook')) await benchHook();
  if (wanted('compaction')) await benchCompaction();
  const table = markdownTable(['what', 'input', 'Retained Outputs', 'baseline', 'ratio'], rows);
  console.log(table);
  mkdirSync('test-output', { recursive: true });
  writeFileSync(join('test-output', 'bench.md'), `${table}\n`);
  removeTempDirs();
}

main().catch((err) => {
  console.error(err);
  removeTempDirs();
  process.exit(1);
});
