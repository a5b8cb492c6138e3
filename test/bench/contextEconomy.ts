/**
 * Context economy: every model request sends the history before it, so what a session costs
 * is the cumulative tokens over its requests. For real transcripts (imported into a temp store)
 * and synthetic long sessions, compares our policies with simulations of other harnesses'
 * policies on the same history. Tokens: o200k_base on each message's JSON (Anthropic shape).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { applyHistoryPolicy, type ResultInfo, resultInfos } from '../../server/src/core/history/policy';
import { DEFAULT_HISTORY_POLICY, type HistoryPolicy } from '../../shared/settings';

const withPolicy = (replay: StructuredReplay, infos: Map<number, ResultInfo>, policy: HistoryPolicy) =>
  applyHistoryPolicy(replay.messages, replay.owners, infos, policy).messages;

import { toAnthropic } from '../../server/src/core/history/providers';
import { replayStructured, resultText, type StructuredReplay } from '../../server/src/core/history/replay';
import { RetentionService } from '../../server/src/core/service';
import { measureMessages } from '../../server/src/core/text/tokens';
import type { TranscriptEvent } from '../../shared/events';
import type { Message } from '../../shared/history';
import { findMarkers } from '../../shared/stubText';
import { folderOf } from '../helpers/folderOf';
import { tempDir } from '../helpers/tmp';

const FIXTURES = resolve(__dirname, '../fixtures/transcripts');
const WINDOW = 200_000;
const CLEARED = '[Old tool result content cleared]';

const sizeOf = (messages: Message[]) =>
  measureMessages(toAnthropic(messages)).reduce(
    (sum, m) => ({ bytes: sum.bytes + m.bytes, tokens: sum.tokens + m.tokens }),
    { bytes: 0, tokens: 0 },
  );
const tokensOf = (messages: Message[]) => sizeOf(messages).tokens;

/** A session: its events, and which results were retained (value files that exist). */
interface Session {
  name: string;
  events: TranscriptEvent[];
  retained: Set<string>;
}

/** Replaces tool_result bodies whose call id is in `ids` with `text`. */
function clearResults(messages: Message[], ids: ReadonlySet<string>, text: (content: string) => string): Message[] {
  return messages.map((m) => ({
    role: m.role,
    content: m.content.map((b) =>
      b.type === 'tool_result' && ids.has(b.tool_use_id) ? { ...b, content: text(resultText(b)) } : b,
    ),
  }));
}

const resultIds = (messages: Message[]) =>
  messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])));

/**
 * A policy turns the history before a request into what is sent. It may keep state across the
 * requests of one session (OpenCode's prune is persistent). `retrievable` says whether what it
 * elides can be read back.
 */
interface Policy {
  name: string;
  retrievable: string;
  start(session: Session): (before: TranscriptEvent[]) => Message[];
}

const policies: Policy[] = [
  {
    name: 'naive replay',
    retrievable: '—',
    start: () => (before) => replayStructured({ events: before, existingValues: new Set(), full: true }).messages,
  },
  {
    name: 'stubs (> 20 KiB)',
    retrievable: '100 %',
    start: (s) => (before) => replayStructured({ events: before, existingValues: s.retained }).messages,
  },
  {
    name: '+ older results as references',
    retrievable: '100 %',
    start: (s) => {
      const infos = resultInfos(s.events, s.retained);
      return (before) =>
        withPolicy(replayStructured({ events: before, existingValues: s.retained }), infos, {
          ...DEFAULT_HISTORY_POLICY,
          inputMaxBytes: Infinity,
          exemptTools: [],
        });
    },
  },
  {
    name: '+ older inputs as references',
    retrievable: '100 %',
    start: (s) => {
      const infos = resultInfos(s.events, s.retained);
      return (before) =>
        withPolicy(replayStructured({ events: before, existingValues: s.retained }), infos, {
          ...DEFAULT_HISTORY_POLICY,
          exemptTools: [],
        });
    },
  },
  {
    // OpenCode's prune: outside the last two user turns, once 40k tokens of tool output pile up
    // (counting back from the newest), older outputs are cleared, if that frees at least 20k.
    name: 'OpenCode prune',
    retrievable: '0 %',
    start: () => {
      const cleared = new Set<string>();
      return (before) => {
        const messages = replayStructured({ events: before, existingValues: new Set(), full: true }).messages;
        const userTurns = messages.flatMap((m, i) =>
          m.role === 'user' && m.content.some((b) => b.type === 'text') ? [i] : [],
        );
        const protectFrom = userTurns.length >= 2 ? userTurns[userTurns.length - 2]! : 0;
        let seen = 0;
        const toClear: string[] = [];
        let freed = 0;
        for (let i = protectFrom - 1; i >= 0; i--) {
          for (const b of messages[i]!.content) {
            if (b.type !== 'tool_result' || cleared.has(b.tool_use_id)) continue;
            const tokens = measureMessages([b.content])[0]!.tokens;
            seen += tokens;
            if (seen > 40_000) {
              toClear.push(b.tool_use_id);
              freed += tokens;
            }
          }
        }
        if (freed >= 20_000) for (const id of toClear) cleared.add(id);
        return clearResults(messages, cleared, () => CLEARED);
      };
    },
  },
  {
    // Anthropic's clear_tool_uses: past 100k input tokens, all but the 3 most recent tool results cleared.
    name: 'Anthropic clear_tool_uses',
    retrievable: '0 %',
    start: () => (before) => {
      const messages = replayStructured({ events: before, existingValues: new Set(), full: true }).messages;
      if (tokensOf(messages) <= 100_000) return messages;
      const ids = resultIds(messages);
      return clearResults(messages, new Set(ids.slice(0, Math.max(0, ids.length - 3))), () => '[cleared]');
    },
  },
  {
    name: 'floor (every result and large input a 200-byte reference)',
    retrievable: '—',
    start: () => (before) => {
      const messages = replayStructured({ events: before, existingValues: new Set(), full: true }).messages;
      const ref = (id: string) => `[ref #${id}]`.padEnd(200, '.');
      return messages.map((m) => ({
        role: m.role,
        content: m.content.map((b) => {
          if (b.type === 'tool_result') return { ...b, content: ref(b.tool_use_id) };
          if (b.type === 'tool_use')
            return {
              ...b,
              input: JSON.parse(
                JSON.stringify(b.input ?? {}, (_k, v: unknown) =>
                  typeof v === 'string' && Buffer.byteLength(v) > 1024 ? ref(b.id) : v,
                ),
              ),
            };
          return b;
        }),
      }));
    },
  },
];

interface Outcome {
  requests: number;
  cumulative: number[];
  cumulativeBytes: number[];
  fitBefore: number[];
  /** Input billed with prompt caching, in input-token equivalents (reads 0.1×, writes 1.25×), and the share of input read from the cache. */
  cached: number[];
  hitShare: number[];
}

/** A figure against its baseline: "−15 %" when below it, "+2 %" when above. */
function change(value: number, base: number): string {
  const percent = Math.round(100 * (value / base - 1));
  return percent <= 0 ? `−${-percent} %` : `+${percent} %`;
}

/** Prompt caching as the Messages API bills it: the longest run of messages equal to the previous request's is read, the rest written. */
const CACHE_READ = 0.1;
const CACHE_WRITE = 1.25;

function measure(session: Session): Outcome {
  const sends = policies.map((p) => p.start(session));
  const cumulative = policies.map(() => 0);
  const cumulativeBytes = policies.map(() => 0);
  const fitBefore = policies.map(() => -1);
  const cached = policies.map(() => 0);
  const hits = policies.map(() => 0);
  const previous: string[][] = policies.map(() => []);
  let requests = 0;
  session.events.forEach((event, i) => {
    if (event.type !== 'assistant') return;
    requests++;
    const before = session.events.slice(0, i);
    sends.forEach((send, p) => {
      const wire = toAnthropic(send(before));
      const sizes = measureMessages(wire);
      const tokens = sizes.reduce((n, m) => n + m.tokens, 0);
      const bytes = sizes.reduce((n, m) => n + m.bytes, 0);
      const json = wire.map((m) => JSON.stringify(m));
      let shared = 0;
      while (shared < json.length && json[shared] === previous[p]![shared]) shared++;
      const read = sizes.slice(0, shared).reduce((n, m) => n + m.tokens, 0);
      cached[p]! += read * CACHE_READ + (tokens - read) * CACHE_WRITE;
      hits[p]! += read;
      previous[p] = json;
      cumulative[p]! += tokens;
      cumulativeBytes[p]! += bytes;
      if (tokens > WINDOW && fitBefore[p] === -1) fitBefore[p] = requests - 1;
    });
  });
  return {
    requests,
    cumulative,
    cumulativeBytes,
    fitBefore: fitBefore.map((f) => (f === -1 ? requests : f)),
    cached,
    hitShare: hits.map((h, p) => (cumulative[p]! > 0 ? h / cumulative[p]! : 0)),
  };
}

/**
 * A deterministic long coding session: reads, edits, writes and commands, like a real agent's,
 * with a user message every ten rounds.
 */
function syntheticSession(rounds: number, seed: number): Session {
  let state = seed;
  const rand = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const words = [
    'const',
    'value',
    'return',
    'await',
    'import',
    'export',
    'function',
    'result',
    'error',
    'index',
    'buffer',
    'config',
    'request',
    'response',
    'handler',
    'stream',
  ];
  const code = (bytes: number) => {
    const lines: string[] = [];
    for (let size = 0; size < bytes; ) {
      const line =
        Array.from({ length: 4 + Math.floor(rand() * 8) }, () => words[Math.floor(rand() * words.length)]).join(' ') +
        ';';
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join('\n');
  };
  const events: TranscriptEvent[] = [{ type: 'user', text: 'Implement the feature, run the tests, fix what fails.' }];
  for (let r = 0; r < rounds; r++) {
    // The developer steers every ten rounds, as in a real session (and OpenCode counts turns by them).
    if (r > 0 && r % 10 === 0)
      events.push(
        { type: 'assistant', text: 'Step done.' },
        { type: 'user', text: `Next step ${r / 10}: keep going.` },
      );
    const id = `call_${r}`;
    const kind = rand();
    if (kind < 0.4) {
      events.push({
        type: 'assistant',
        toolCalls: [{ id, name: 'Read', arguments: { file_path: `/src/module${r % 37}.ts` } }],
      });
      events.push({ type: 'tool_call_finished', callId: id, tool: 'Read', result: code(2000 + rand() * 38000) });
    } else if (kind < 0.65) {
      events.push({
        type: 'assistant',
        toolCalls: [
          {
            id,
            name: 'Edit',
            arguments: {
              file_path: `/src/module${r % 37}.ts`,
              old_string: code(500 + rand() * 2500),
              new_string: code(500 + rand() * 2500),
            },
          },
        ],
      });
      events.push({ type: 'tool_call_finished', callId: id, tool: 'Edit', result: 'The file has been updated.' });
    } else if (kind < 0.8) {
      events.push({
        type: 'assistant',
        toolCalls: [
          { id, name: 'Write', arguments: { file_path: `/src/new${r}.ts`, content: code(2000 + rand() * 8000) } },
        ],
      });
      events.push({ type: 'tool_call_finished', callId: id, tool: 'Write', result: 'File created.' });
    } else {
      events.push({ type: 'assistant', toolCalls: [{ id, name: 'Bash', arguments: { command: 'npm test' } }] });
      events.push({ type: 'tool_call_finished', callId: id, tool: 'Bash', result: code(300 + rand() * 60000) });
    }
  }
  events.push({ type: 'assistant', text: 'Done.' });
  // Results over 20 KiB are retained, as they would have been live.
  const retained = new Set<string>();
  for (const e of events) {
    if (e.type === 'tool_call_finished' && Buffer.byteLength(e.result ?? '') > 20480) {
      e.valueId = e.callId;
      e.preview = { previewHeadLines: 6, previewTailLines: 6 };
      retained.add(e.callId);
    }
  }
  return { name: `synthetic, ${rounds} rounds`, events, retained };
}

/** Each transcript in the fixtures that the importer reads, imported into its own temp store. */
async function* importedFixtures(): AsyncGenerator<{ file: string; service: RetentionService; runId: string }> {
  for (const file of readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    const service = new RetentionService(join(tempDir('retained-economy-'), '.retained'));
    await service.init();
    try {
      const { runId } = await service.importer.import({ path: join(FIXTURES, file) });
      yield { file, service, runId };
    } catch {
      // not a transcript the importer reads
    }
  }
}

async function fixtureSessions(): Promise<Session[]> {
  const sessions: Session[] = [];
  for await (const { file, service, runId } of importedFixtures()) {
    const { events } = await service.transcript({ runId: runId });
    if (!events.some((e) => e.type === 'tool_call_finished')) continue;
    const retained = new Set((await service.store.values.listFiles(runId)).map((v) => v.valueId));
    // The policies below are measured on whole messages: give each retained result its body back.
    for (const e of events)
      if (e.type === 'tool_call_finished' && e.result === undefined && e.valueId)
        e.result = readFileSync(folderOf(service.store).values.path(runId, e.valueId), 'utf8');
    sessions.push({ name: file.replace(/\.jsonl$/, '').slice(0, 44), events, retained });
  }
  return sessions;
}

export interface EconomyTables {
  cumulative: string[][];
  bytes: string[][];
  window: string[][];
  /** With prompt caching: the input billed, against the naive replay's with caching, and the cache's hit share. */
  cached: string[][];
  header: string[];
}

export async function contextEconomy(): Promise<EconomyTables> {
  const sessions = [...(await fixtureSessions()), syntheticSession(120, 7), syntheticSession(300, 11)];
  const cumulative: string[][] = [];
  const bytes: string[][] = [];
  const window: string[][] = [];
  const cached: string[][] = [];
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  for (const session of sessions) {
    const outcome = measure(session);
    const naive = outcome.cumulative[0]!;
    cumulative.push([
      session.name,
      String(outcome.requests),
      ...outcome.cumulative.map((t, p) =>
        p === 0 ? t.toLocaleString('en-US') : `${t.toLocaleString('en-US')} (−${(100 * (1 - t / naive)).toFixed(0)} %)`,
      ),
    ]);
    bytes.push([session.name, String(outcome.requests), ...outcome.cumulativeBytes.map(mb)]);
    window.push([session.name, String(outcome.requests), ...outcome.fitBefore.map(String)]);
    const naiveCached = outcome.cached[0]!;
    cached.push([
      session.name,
      String(outcome.requests),
      ...outcome.cached.map((c, p) => {
        const hit = `${(100 * outcome.hitShare[p]!).toFixed(0)} % hits`;
        return p === 0
          ? `${Math.round(c).toLocaleString('en-US')} (${hit})`
          : `${Math.round(c).toLocaleString('en-US')} (${change(c, naiveCached)}, ${hit})`;
      }),
    ]);
  }
  return { cumulative, bytes, window, cached, header: policies.map((p) => p.name) };
}

export const RETRIEVABLE = policies.map((p) => [p.name, p.retrievable]);

/**
 * Checks, on the real transcripts, that what our default policy elides can be read back: every
 * `[retained #id]` in the projection is peeked through the service.
 */
export async function measureRetrievable(): Promise<{ references: number; readBack: number }> {
  let references = 0;
  let readBack = 0;
  for await (const { service, runId } of importedFixtures()) {
    const replay = await service.history.replay({ runId: runId, shape: 'anthropic', policy: {} });
    const ids = new Set(findMarkers(JSON.stringify(replay)).map((m) => m.valueId));
    for (const valueId of ids) {
      references++;
      if (await service.values.peek({ valueId, runId, start: 1, end: 1 }).catch(() => undefined)) readBack++;
    }
  }
  return { references, readBack };
}
