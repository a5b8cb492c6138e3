/**
 * Context economy on real agent transcripts: every model request sends the history before it,
 * so what counts is the cumulative tokens over a session. For each transcript, imported into a
 * temp store, compares naive replay, stubs for results over the threshold, and stubs plus older
 * results as references (the default history policy). Tokens: o200k_base on each message's JSON.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { applyHistoryPolicy, DEFAULT_HISTORY_POLICY, type ResultInfo } from '../../server/src/core/historyPolicy';
import { importTranscript } from '../../server/src/core/importer';
import { toAnthropic } from '../../server/src/core/providers';
import { replayStructured, type Message } from '../../server/src/core/replay';
import { RetentionService } from '../../server/src/core/retention';
import { measureMessages } from '../../server/src/core/tokens';
import type { TranscriptEvent } from '../../server/src/core/transcript';
import { tempDir } from '../helpers/tmp';

const FIXTURES = resolve(__dirname, '../../../shared/fixtures/transcripts');

const tokensOf = (messages: Message[]) => measureMessages(toAnthropic(messages)).reduce((n, m) => n + m.tokens, 0);

function resultInfos(events: readonly TranscriptEvent[]): Map<string, ResultInfo> {
  const infos = new Map<string, ResultInfo>();
  for (const e of events) {
    if (e.type !== 'tool_call_finished') continue;
    infos.set(e.callId, {
      tool: e.tool,
      text: e.result,
      isError: e.isError ?? false,
      sha256: e.sha256 ?? createHash('sha256').update(e.result).digest('hex'),
      ...(e.valueId ? { valueId: e.valueId } : {}),
    });
  }
  return infos;
}

export async function contextEconomyRows(): Promise<string[][]> {
  const rows: string[][] = [];
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl')).sort();
  for (const file of files) {
    const service = new RetentionService(join(tempDir('retained-economy-'), '.retained'));
    await service.init();
    let runId: string;
    try {
      ({ runId } = await importTranscript(service, join(FIXTURES, file)));
    } catch {
      continue; // not a transcript this importer reads (e.g. the schema-coverage sample)
    }
    const { events } = await service.transcript(runId);
    const existing = new Set((await service.store.listValueFiles(runId)).map((v) => v.valueId));
    const infos = resultInfos(events);
    if (infos.size === 0) continue;
    let requests = 0;
    const total = { naive: 0, stubs: 0, refs: 0 };
    // Each assistant event is a model response: its request sent every event before it.
    for (let i = 0; i < events.length; i++) {
      if (events[i]!.type !== 'assistant') continue;
      const before = events.slice(0, i);
      requests++;
      total.naive += tokensOf(replayStructured({ events: before, existingValues: new Set() }).messages);
      const stubbed = replayStructured({ events: before, existingValues: existing }).messages;
      total.stubs += tokensOf(stubbed);
      total.refs += tokensOf(applyHistoryPolicy(stubbed, infos, { ...DEFAULT_HISTORY_POLICY, exemptTools: [] }).messages);
    }
    const pct = (n: number) => `${(100 * (1 - n / total.naive)).toFixed(0)} % less`;
    rows.push([
      file.replace(/\.jsonl$/, '').slice(0, 48),
      String(requests),
      String(infos.size),
      total.naive.toLocaleString('en-US'),
      `${total.stubs.toLocaleString('en-US')} (${pct(total.stubs)})`,
      `${total.refs.toLocaleString('en-US')} (${pct(total.refs)})`,
    ]);
  }
  return rows;
}
