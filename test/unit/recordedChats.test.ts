/**
 * Gemini CLI, Qwen Code, GitHub Copilot CLI and Cline sessions imported from what a real agent
 * wrote against a scripted model (test/fixtures/<agent>/; `npm run record:chats`). Their files
 * keep messages only, so a run is a conversation, not exact requests: each logged request's
 * conversation (texts, calls with their arguments, results as the model got them) must equal the
 * history rebuilt for that model call, but for what its format's `notRecorded` lists
 * (shared/agents.ts). A cut output's value is the whole output where the agent saved it, and a
 * hooked session enriches its own run.
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { cutOf } from '../../server/src/core/history/modelCalls';
import { toOpenAIChat } from '../../server/src/core/history/providers';
import { replayStructured } from '../../server/src/core/history/replay';
import { stubsSent } from '../../server/src/core/import/importer';
import { RetentionService } from '../../server/src/core/service';
import { findMarkers } from '../../shared/stubText';
import { assertSound, type Logged, loggedRequests } from '../helpers/asSent';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const FIXTURES = resolve(__dirname, '../fixtures');

/** One step of a conversation, whatever the provider's shape. */
type Step = { user: string } | { text: string } | { call: string; args: unknown } | { result: string };
/** A logged part or message, read loosely: the test checks what it holds. */
// biome-ignore lint/suspicious/noExplicitAny: logged JSON of two providers' shapes
type Loose = Record<string, any>;

/** Consecutive user texts as one (how a provider's message holds them differs by shape). */
function joined(steps: Step[]): Step[] {
  const out: Step[] = [];
  for (const step of steps) {
    const last = out.at(-1);
    if (last && 'user' in last && 'user' in step) out[out.length - 1] = { user: `${last.user}\n${step.user}` };
    else out.push(step);
  }
  return out;
}

/** The session file under a fixture's home that `name` picks. */
function sessionIn(dir: string, name: RegExp): string {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(d, e.name));
      else if (name.test(join(d, e.name))) found.push(join(d, e.name));
  };
  walk(join(dir, 'home'));
  assert.equal(found.length, 1, `${dir} holds one session`);
  return found[0]!;
}

/** Cline's note where it cut a result on the way to the model (its head, then its tail). */
const WIRE_CUT = /(?:\\n|\n)*\.\.\.\[truncated \d+ chars\]\.\.\.(?:\\n|\n)*/;

/** The steps equal, a result the agent cut on the way matching the head and tail of the one kept. */
function assertSameSteps(rebuilt: Step[], sent: Step[], what: string): void {
  const cut = sent.map((step, i) => {
    const kept = rebuilt[i];
    if (!('result' in step) || !kept || !('result' in kept)) return step;
    const [head, tail] = step.result.split(WIRE_CUT);
    return tail !== undefined && kept.result.startsWith(head!) && kept.result.endsWith(tail) ? kept : step;
  });
  assert.deepEqual(joined(rebuilt), joined(cut), what);
}

/** A Gemini request's contents as steps: thoughts are not sent as text, a repeated response once. */
function geminiSteps(body: Logged['body']): Step[] {
  const steps: Step[] = [];
  let calls = 0;
  let results = 0;
  for (const content of (body.contents as { role: string; parts: Loose[] }[]) ?? [])
    for (const part of content.parts) {
      if (part.functionCall) {
        calls++;
        steps.push({ call: part.functionCall.name, args: part.functionCall.args });
      } else if (part.functionResponse) {
        // Responses answer the calls in order: one past the calls made is a repeat.
        if (results >= calls) continue;
        results++;
        const r = part.functionResponse.response;
        steps.push({ result: r.output ?? r.error });
      } else if (typeof part.text === 'string' && !part.thought)
        steps.push(content.role === 'user' ? { user: part.text } : { text: part.text });
    }
  return steps;
}

/** A Qwen Code (OpenAI Chat) request's messages as steps: its system message and reminders left out. */
function chatSteps(body: Logged['body']): Step[] {
  const steps: Step[] = [];
  for (const m of (body.messages as Loose[]) ?? []) {
    const texts = (c: unknown): string[] =>
      typeof c === 'string' ? [c] : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '') : [];
    if (m.role === 'system') continue;
    if (m.role === 'user')
      for (const t of texts(m.content)) if (!t.startsWith('<system-reminder>')) steps.push({ user: t });
    if (m.role === 'assistant') {
      for (const t of texts(m.content)) if (t) steps.push({ text: t });
      for (const c of m.tool_calls ?? []) steps.push({ call: c.function.name, args: JSON.parse(c.function.arguments) });
    }
    if (m.role === 'tool') steps.push({ result: texts(m.content).join('') });
  }
  return steps;
}

/** The history rebuilt for model call `k`, as the agent sent it, as steps. */
function rebuiltSteps(events: Parameters<typeof replayStructured>[0]['events'], k: number): Step[] {
  const { messages } = replayStructured({
    events: events.slice(0, cutOf(events, k)),
    existingValues: new Set(),
    view: 'sent',
  });
  return chatSteps({ messages: toOpenAIChat(messages) } as Logged['body']);
}

interface Recorded {
  name: string;
  /** The session file under the fixture's home. */
  file: RegExp;
  steps: (body: Logged['body']) => Step[];
  build: string;
  /** How the agent's own notice of a cut output starts, in what the model got. */
  notice: RegExp;
  /** The whole output is kept where the agent saved it (else only what it kept is, and says so). */
  whole: boolean;
  /** Its hook's run is the session's (else a run of its own, by a name the session file lacks). */
  sameRun: boolean;
}

const AGENTS: Record<string, Recorded> = {
  'gemini-cli': {
    name: 'Gemini CLI',
    file: /\/chats\/session-.*\.jsonl$/,
    steps: geminiSteps,
    build: 'build-resume',
    notice: /Output too large/,
    whole: true,
    sameRun: true,
  },
  'qwen-code': {
    name: 'Qwen Code',
    file: /\/chats\/[^/]*\.jsonl$/,
    steps: chatSteps,
    build: 'build-resume',
    notice: /too large and has been truncated/,
    whole: true,
    sameRun: true,
  },
  'copilot-cli': {
    name: 'GitHub Copilot CLI',
    file: /\/events\.jsonl$/,
    steps: chatSteps,
    build: 'build-resume',
    notice: /^Output too large to read at once/,
    whole: false,
    sameRun: true,
  },
  cline: {
    name: 'Cline',
    file: /\.messages\.json$/,
    steps: chatSteps,
    build: 'build-parallel',
    notice: /output truncated: 60923 chars total/,
    whole: false,
    sameRun: false,
  },
};

for (const [agent, recorded] of Object.entries(AGENTS)) {
  describe(`${recorded.name} sessions, recorded from the real agent`, () => {
    after(removeTempDirs);
    const dir = (scenario: string) => join(FIXTURES, agent, scenario);

    it("a build the agent cut, with parallel calls and a failing one: every request's conversation rebuilt", async () => {
      const s = new RetentionService(join(tempDir(), '.retained'));
      await s.init();
      const result = await s.importer.import({ path: sessionIn(dir(recorded.build), recorded.file) });
      assert.equal(result.format, agent);
      assert.equal(result.fidelity, 'conversation');
      assert.equal(result.toolCalls, agent === 'cline' ? 4 : 3, "the build, two looks (and Cline's submit)");
      await assertSound(s, result);
      const { events } = await s.transcript({ runId: result.runId });
      const logged = loggedRequests(dir(recorded.build));
      logged.forEach((request, i) => {
        assertSameSteps(rebuiltSteps(events, i + 1), recorded.steps(request.body), `request ${i + 1}`);
      });
      if (agent === 'gemini-cli')
        assert.ok(
          result.notes.some((n) => n.includes('twice')),
          result.notes.join('; '),
        );

      const firstCall = events.flatMap((e) => (e.type === 'assistant' ? (e.toolCalls ?? []) : []))[0]?.id;
      const build = events.find((e) => e.type === 'tool_call_finished' && e.callId === firstCall);
      assert.ok(build?.type === 'tool_call_finished');
      if (recorded.whole) {
        // The value is the whole output the agent saved, its error line among what the model never got.
        assert.ok(build.valueId, 'retained');
        const value = await s.values.peek({
          runId: result.runId,
          valueId: build.valueId,
          landmark: 'error',
          context: 0,
        });
        assert.match(JSON.stringify(value), /error: linker failed at step 6001/);
        assert.doesNotMatch(String(build.sent), /^(Output: )?error: linker failed at step 6001$/m);
        assert.match(String(build.sent), recorded.notice);
      } else {
        // The agent never kept the whole output: the run says so, and keeps what it has.
        assert.match(build.lost ?? '', /kept|temporary file/);
        assert.ok(result.notes.length > 0);
        const kept = build.valueId
          ? (await s.values.peek({ runId: result.runId, valueId: build.valueId, start: 1, end: 3 })).text
          : (build.result ?? '');
        assert.doesNotMatch(kept, /^error: linker failed at step 6001$/m);
      }
    });

    it('a session run with the hook, imported beside its own run: its stub names the whole output', async () => {
      const root = tempDir();
      cpSync(join(dir('hook-peek'), 'store'), join(root, '.retained'), { recursive: true });
      // A small command the hook ran through retained run during the session: the run records it
      // under an id of its own, as Gemini CLI names no call to its hooks.
      const runs = join(root, '.retained', 'runs');
      const transcript = readdirSync(runs).find((f) => f.endsWith('.jsonl'));
      if (transcript) {
        const last = JSON.parse(readFileSync(join(runs, transcript), 'utf8').trim().split('\n').at(-1)!) as {
          tool: string;
        };
        const small = {
          type: 'tool_call_finished',
          callId: 'run-small',
          tool: last.tool,
          result: 'ok\n',
          ts: '2026-12-01T17:14:20.000Z',
        };
        appendFileSync(join(runs, transcript), `${JSON.stringify(small)}\n`);
      }
      const s = new RetentionService(join(root, '.retained'));
      await s.init();
      const before = (await s.listRuns()).map((r) => r.runId);
      assert.equal(before.length, 1);
      const result = await s.importer.import({ path: sessionIn(dir('hook-peek'), recorded.file) });
      await assertSound(s, result);
      const { events } = await s.transcript({ runId: result.runId });
      assert.ok(events.some((e) => e.type === 'user' && e.text.includes('Scenario hook')));
      const [stub] = events.flatMap((e) =>
        e.type === 'tool_call_finished' ? findMarkers(String(e.sent ?? e.result ?? '')) : [],
      );
      assert.ok(stub, 'the model got a stub');
      if (recorded.sameRun) {
        assert.equal(result.runId, before[0], 'the import is the run the hook wrote');
        assert.equal(result.enriched, 1);
        assert.deepEqual([...stubsSent(events)], [stub.valueId], 'the value the model was sent a stub of');
        // The joined run holds the session's calls, no more (the hook's records of them are not added again).
        const alone = new RetentionService(join(tempDir(), '.retained'));
        await alone.init();
        const plain = await alone.importer.import({ path: sessionIn(dir('hook-peek'), recorded.file) });
        const calls = (list: readonly { type: string }[]) => list.filter((e) => e.type === 'tool_call_finished').length;
        assert.equal(calls(events), calls((await alone.transcript({ runId: plain.runId })).events));
      } else {
        // Cline's plugin knows the conversation's id, not the session's: the runs stay two.
        assert.notEqual(result.runId, before[0]);
      }
      const peek = await s.values.peek({
        runId: recorded.sameRun ? result.runId : before[0]!,
        valueId: stub.valueId,
        landmark: 'error',
        context: 0,
      });
      assert.match(JSON.stringify(peek), /6001: error: linker failed at step 6001/);
      const file = readFileSync(sessionIn(dir('hook-peek'), recorded.file), 'utf8');
      assert.ok(file.includes(`[retained #${stub.valueId}]`), 'the session holds the stub the model got');
    });
  });
}

describe('a hooked session whose later output mentions an earlier stub', () => {
  after(removeTempDirs);
  it('keeps that output as its own: only a result holding a whole stub is the value it names', async () => {
    const dir = join(FIXTURES, 'gemini-cli', 'hook-peek');
    const root = tempDir();
    cpSync(join(dir, 'store'), join(root, '.retained'), { recursive: true });
    const s = new RetentionService(join(root, '.retained'));
    await s.init();
    const chat = sessionIn(dir, /\/chats\/session-.*\.jsonl$/);
    const text = readFileSync(chat, 'utf8');
    const [stub] = findMarkers(text);
    assert.ok(stub);
    // A later call printed the stub's first line (a cat of notes the model wrote).
    const mention = `notes: [retained #${stub.valueId}] kept the build log`;
    const extra = [
      {
        id: 'm-cat',
        type: 'gemini',
        timestamp: '2026-12-01T17:15:00.000Z',
        content: '',
        toolCalls: [{ id: 'cat_1', name: 'run_shell_command', args: { command: 'cat notes.md' } }],
      },
      {
        id: 'u-cat',
        type: 'user',
        timestamp: '2026-12-01T17:15:01.000Z',
        content: [{ functionResponse: { id: 'cat_1', name: 'run_shell_command', response: { output: mention } } }],
      },
    ];
    const copy = join(tempDir(), 'chats', basename(chat));
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, `${text}${extra.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const result = await s.importer.import({ path: copy, runId: (await s.listRuns())[0]!.runId });
    const { events } = await s.transcript({ runId: result.runId });
    const cat = events.find((e) => e.type === 'tool_call_finished' && e.callId === 'cat_1');
    assert.ok(cat?.type === 'tool_call_finished');
    assert.equal(cat.result, mention, 'its own output');
    assert.equal(cat.valueId, undefined);
    assert.equal(events.filter((e) => e.type === 'tool_call_finished' && e.valueId === stub.valueId).length, 1);
  });
});

describe('a Gemini CLI chat rewound', () => {
  after(removeTempDirs);
  it('leaves out the message it rewound to and all after it, and says so', async () => {
    const chat = sessionIn(join(FIXTURES, 'gemini-cli', 'build-resume'), /\/chats\/session-.*\.jsonl$/);
    const text = readFileSync(chat, 'utf8');
    const second = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id?: string; type?: string; content?: { text?: string }[] })
      .find((r) => r.type === 'user' && r.content?.[0]?.text === 'Scenario build: two more looks.');
    assert.ok(second?.id);
    const copy = join(tempDir(), 'chats', basename(chat));
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, `${text}${JSON.stringify({ $rewindTo: second.id })}\n`);
    const s = new RetentionService(join(tempDir(), '.retained'));
    await s.init();
    const result = await s.importer.import({ path: copy });
    const { events } = await s.transcript({ runId: result.runId });
    assert.ok(events.some((e) => e.type === 'user' && e.text === 'Scenario build: build it.'));
    assert.ok(!events.some((e) => e.type === 'user' && e.text.includes('two more looks')), 'rewound away');
    assert.equal(result.toolCalls, 1);
    assert.ok(
      result.notes.some((n) => /taken out of the chat later/.test(n)),
      result.notes.join('; '),
    );
  });
});

describe('a Qwen Code chat compressed', () => {
  after(removeTempDirs);
  it('sends the compressed history from there on, as Qwen Code rebuilds it, not what came before', async () => {
    const chat = sessionIn(join(FIXTURES, 'qwen-code', 'build-resume'), /\/chats\/[^/]*\.jsonl$/);
    const text = readFileSync(chat, 'utf8');
    const last = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { uuid: string; sessionId: string })
      .at(-1)!;
    const extra = [
      {
        uuid: 'c-1',
        parentUuid: last.uuid,
        sessionId: last.sessionId,
        type: 'system',
        subtype: 'chat_compression',
        timestamp: '2026-12-01T17:20:00.000Z',
        systemPayload: {
          compressedHistory: [
            { role: 'user', parts: [{ text: 'Summary: the build failed at the link step.' }] },
            { role: 'model', parts: [{ text: 'Got it.' }] },
          ],
        },
      },
      {
        uuid: 'u-9',
        parentUuid: 'c-1',
        sessionId: last.sessionId,
        type: 'user',
        timestamp: '2026-12-01T17:20:01.000Z',
        message: { role: 'user', parts: [{ text: 'And now?' }] },
      },
    ];
    const copy = join(tempDir(), basename(chat));
    writeFileSync(copy, `${text}${extra.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const s = new RetentionService(join(tempDir(), '.retained'));
    await s.init();
    const result = await s.importer.import({ path: copy });
    await assertSound(s, result);
    const { events } = await s.transcript({ runId: result.runId });
    assert.ok(events.some((e) => e.type === 'compaction'));
    // The next model call: the summary, the acknowledgement, the new prompt; nothing from before.
    const next = rebuiltSteps(events, Number.MAX_SAFE_INTEGER);
    assert.deepEqual(next, [
      { user: 'Summary: the build failed at the link step.' },
      { text: 'Got it.' },
      { user: 'And now?' },
    ]);
  });
});
