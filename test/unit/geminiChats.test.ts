/**
 * Gemini CLI and Qwen Code chats imported from sessions a real agent wrote against a scripted
 * model (test/fixtures/gemini-cli, test/fixtures/qwen-code; `npm run record:chats`). Their chats
 * keep messages only, so a run is a conversation, not exact requests: each logged request's
 * conversation (texts, calls with their arguments, results as the model got them) must equal the
 * history rebuilt for that model call, but for what `shared/fidelity.ts` lists. A cut output's
 * value is the whole output the agent saved, and a hooked session enriches its own run.
 */
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cutOf } from '../../server/src/core/history/modelCalls';
import { toOpenAIChat } from '../../server/src/core/history/providers';
import { replayStructured } from '../../server/src/core/history/replay';
import { stubsSent } from '../../server/src/core/import/importer';
import { RetentionService } from '../../server/src/core/service';
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

function chatFile(dir: string): string {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(d, e.name));
      else if (d.endsWith('/chats') && e.name.endsWith('.jsonl')) found.push(join(d, e.name));
  };
  walk(join(dir, 'home'));
  assert.equal(found.length, 1, `${dir} holds one chat`);
  return found[0]!;
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

for (const agent of ['gemini-cli', 'qwen-code'] as const) {
  describe(`${agent === 'gemini-cli' ? 'Gemini CLI' : 'Qwen Code'} chats, recorded from the real agent`, () => {
    after(removeTempDirs);
    const dir = (scenario: string) => join(FIXTURES, agent, scenario);

    it("a build the agent cut, resumed with parallel calls and a failing one: every request's conversation rebuilt", async () => {
      const s = new RetentionService(join(tempDir(), '.retained'));
      await s.init();
      const result = await s.importer.import({ path: chatFile(dir('build-resume')) });
      assert.equal(result.format, agent);
      assert.equal(result.fidelity, 'conversation');
      assert.equal(result.toolCalls, 3);
      assert.equal(result.retained, 1);
      await assertSound(s, result);
      const { events } = await s.transcript({ runId: result.runId });
      const logged = loggedRequests(dir('build-resume'));
      logged.forEach((request, i) => {
        const sent = agent === 'gemini-cli' ? geminiSteps(request.body) : chatSteps(request.body);
        assert.deepEqual(joined(rebuiltSteps(events, i + 1)), joined(sent), `request ${i + 1}`);
      });
      if (agent === 'gemini-cli')
        assert.ok(
          result.notes.some((n) => n.includes('twice')),
          result.notes.join('; '),
        );

      // The value is the whole output the agent saved, its error line among what the model never got.
      const build = events.find((e) => e.type === 'tool_call_finished' && e.valueId);
      assert.ok(build?.type === 'tool_call_finished' && build.valueId);
      const value = await s.values.peek({ runId: result.runId, valueId: build.valueId, landmark: 'error', context: 0 });
      assert.match(JSON.stringify(value), /error: linker failed at step 6001/);
      assert.doesNotMatch(String(build.sent), /^(Output: )?error: linker failed at step 6001$/m);
      assert.match(
        String(build.sent),
        agent === 'gemini-cli' ? /Output too large/ : /too large and has been truncated/,
      );
    });

    it('a session run with the hook, imported beside its own run: the run is enriched, its stub still names its value', async () => {
      const root = tempDir();
      cpSync(join(dir('hook-peek'), 'project', '.retained'), join(root, '.retained'), { recursive: true });
      const s = new RetentionService(join(root, '.retained'));
      await s.init();
      const before = (await s.listRuns()).map((r) => r.runId);
      assert.equal(before.length, 1);
      const result = await s.importer.import({ path: chatFile(dir('hook-peek')) });
      assert.equal(result.runId, before[0], 'the import is the run the hook wrote');
      assert.equal(result.enriched, 1);
      const { events } = await s.transcript({ runId: result.runId });
      const sent = stubsSent(events);
      assert.equal(sent.size, 1, 'the value the model was sent a stub of');
      const [valueId] = [...sent];
      const peek = await s.values.peek({ runId: result.runId, valueId: valueId!, landmark: 'error', context: 0 });
      assert.match(JSON.stringify(peek), /6001: error: linker failed at step 6001/);
      await assertSound(s, result);
      assert.ok(events.some((e) => e.type === 'user' && e.text.includes('Scenario hook')));
      const again = readFileSync(chatFile(dir('hook-peek')), 'utf8');
      assert.ok(again.includes(`[retained #${valueId}]`), 'the chat holds the stub the model got');
    });
  });
}
