/**
 * What a compaction costs in work done again: on every compacted session in the fixtures
 * (imported into a temp store), the tool calls after each compaction that ran a command or read
 * a file again whose output was retained before it (what the index handed to the model is there
 * to avoid), and the size of that index.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RetentionService } from '../../server/src/core/service';
import { callSubject } from '../../shared/callSubject';
import type { TranscriptEvent } from '../../shared/events';
import { type IndexedValue, retainedIndex } from '../../shared/stubText';
import { utf8Length } from '../../shared/utf8';
import { tempDir } from '../helpers/tmp';

const FIXTURES = resolve(__dirname, '../fixtures');

/** The agents' own session files under the fixtures: not the scripted model's requests. */
function sessionFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'mcp-registry' ? [] : sessionFiles(path);
      return /\.(jsonl|json)$/.test(name) && name !== 'requests.jsonl' ? [path] : [];
    });
}

export interface CompactionRow {
  session: string;
  compaction: number;
  retainedBefore: number;
  callsAfter: number;
  again: number;
  indexBytes: number;
}

/** One row per compaction, for each compacted session the importer reads. */
export async function compactionReruns(): Promise<CompactionRow[]> {
  const rows: CompactionRow[] = [];
  for (const file of sessionFiles(FIXTURES)) {
    const service = new RetentionService(join(tempDir('retained-bench-compaction-'), '.retained'));
    await service.init();
    let runId: string;
    try {
      ({ runId } = await service.importer.import({ path: file }));
    } catch {
      continue; // not a session file the importer reads
    }
    const { events } = await service.transcript({ runId });
    if (!events.some((e) => e.type === 'compaction' && e.reason !== 'rewind')) continue;
    const metas = new Map((await service.values.indexed(runId)).map((v) => [v.valueId, v]));
    rows.push(...rerunsOf(file.slice(FIXTURES.length + 1), runId, events, metas));
  }
  return rows;
}

export function rerunsOf(
  session: string,
  runId: string,
  events: readonly TranscriptEvent[],
  metas: ReadonlyMap<string, IndexedValue>,
): CompactionRow[] {
  const args = new Map<string, unknown>();
  const subjectOf = (callId: string, tool: string) => {
    const subject = callSubject(args.get(callId));
    return subject && `${tool} ${subject.text}`;
  };
  const rows: CompactionRow[] = [];
  const retained: IndexedValue[] = [];
  const retainedSubjects = new Set<string>();
  let open: CompactionRow | undefined;
  let before = new Set<string>();
  for (const event of events) {
    if (event.type === 'assistant') for (const call of event.toolCalls ?? []) args.set(call.id, call.arguments);
    if (event.type === 'compaction' && event.reason !== 'rewind') {
      before = new Set(retainedSubjects);
      open = {
        session,
        compaction: rows.length + 1,
        retainedBefore: retained.length,
        callsAfter: 0,
        again: 0,
        indexBytes: utf8Length(retainedIndex(retained, runId)),
      };
      rows.push(open);
    }
    if (event.type !== 'tool_call_finished') continue;
    if (!args.has(event.callId)) args.set(event.callId, event.arguments);
    const subject = subjectOf(event.callId, event.tool);
    if (open) {
      open.callsAfter++;
      if (subject && before.has(subject)) open.again++;
    }
    const meta = event.valueId ? metas.get(event.valueId) : undefined;
    if (meta) {
      retained.push(meta);
      if (subject) retainedSubjects.add(subject);
    }
  }
  return rows;
}
