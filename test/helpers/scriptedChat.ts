/**
 * A scripted model for agents on an OpenAI-compatible provider (OpenCode): an HTTP server on
 * 127.0.0.1 answering `POST /v1/chat/completions` (streamed as server-sent chunks, or whole). A
 * request with no tools (a title request) gets a title; any other is answered by the first
 * unused rule whose trigger matches its last message (a tool result of a given function, or a
 * user text holding a given prompt); every request body is logged. The one mock in the test: a
 * model provider cannot run here.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
  role: string;
  content?: string | { type?: string; text?: string }[] | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

export type ChatReply =
  | { tool: string; args: Record<string, unknown> }
  | { text: string }
  /** Several calls in one response (parallel), after an optional text. */
  | { calls: { tool: string; args: Record<string, unknown> }[]; text?: string };

export interface ChatRule {
  /** The last message is the result of a call of this function. */
  after?: string;
  prompt?: string;
  /** Answers a request that offers no tools (an agent's summary or title request), not a turn. */
  bare?: true;
  /** The prompt tokens its answer reports (10 unless said): an agent compacts on them. */
  promptTokens?: number;
  reply: ChatReply | ((messages: ChatMessage[]) => ChatReply);
}

/** A message's text, whether its content is a string or parts. */
export const chatText = (content: ChatMessage['content']) =>
  typeof content === 'string' ? content : (content ?? []).map((c) => c.text ?? '').join('');

/** The text of every tool result in the messages. */
export const toolResults = (messages: ChatMessage[]): string =>
  messages
    .filter((m) => m.role === 'tool')
    .map((m) => chatText(m.content))
    .join('\n');

export class ScriptedChat {
  readonly requests: { messages: ChatMessage[]; tools?: { function?: { name?: string } }[] }[] = [];
  /** Every request as it came: its path and whole body. */
  readonly logged: { url: string; body: Record<string, unknown> }[] = [];
  private readonly used = new Set<number>();
  private server: Server | undefined;
  private seq = 0;

  constructor(private readonly rules: ChatRule[]) {}

  /** The base URL (ending in /v1), for the provider's baseURL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  unusedRules(): number[] {
    return this.rules.flatMap((_, i) => (this.used.has(i) ? [] : [i]));
  }

  /** What the model got back for the first call of function `name`, in any request. */
  resultOf(name: string): string | undefined {
    for (const { messages } of this.requests) {
      const call = messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === name);
      const result = call && messages.find((m) => m.role === 'tool' && m.tool_call_id === call.id);
      if (result) return chatText(result.content);
    }
    return undefined;
  }

  /** What each call of function `name` got back, in order, as the last request sent them. */
  resultsOf(name: string): string[] {
    const messages = this.requests.at(-1)?.messages ?? [];
    return messages
      .flatMap((m) => m.tool_calls ?? [])
      .filter((c) => c.function.name === name)
      .map((c) => {
        const result = messages.find((m) => m.role === 'tool' && m.tool_call_id === c.id);
        return result ? chatText(result.content) : '';
      });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
      }
      if (!req.url?.endsWith('/chat/completions')) return void res.writeHead(404).end('{}');
      let body: { messages?: ChatMessage[]; tools?: unknown[]; stream?: boolean } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // not JSON: an empty text below
      }
      const messages = body.messages ?? [];
      this.requests.push({ messages, ...(body.tools ? { tools: body.tools as never } : {}) });
      this.logged.push({ url: req.url, body });
      const bare = !body.tools?.length;
      const { reply, promptTokens } = this.reply(messages, bare) ?? {
        reply: bare ? { text: 'Build and fix' } : { text: '' },
      };
      this.send(res, reply, body.stream === true, promptTokens);
    });
  }

  private reply(messages: ChatMessage[], bare: boolean): { reply: ChatReply; promptTokens?: number } | undefined {
    const last = messages.at(-1);
    const calledName =
      last?.role === 'tool'
        ? messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === last.tool_call_id)?.function.name
        : undefined;
    const at = this.rules.findIndex(
      (rule, i) =>
        !this.used.has(i) &&
        (rule.bare ?? false) === bare &&
        ((rule.after !== undefined && calledName === rule.after) ||
          (rule.prompt !== undefined && last?.role === 'user' && chatText(last.content).includes(rule.prompt))),
    );
    const rule = this.rules[at];
    if (!rule) return undefined;
    this.used.add(at);
    const reply = typeof rule.reply === 'function' ? rule.reply(messages) : rule.reply;
    return { reply, ...(rule.promptTokens !== undefined ? { promptTokens: rule.promptTokens } : {}) };
  }

  private send(res: ServerResponse, reply: ChatReply, stream: boolean, promptTokens = 10): void {
    const id = `chatcmpl-${++this.seq}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 };
    const wanted = 'tool' in reply ? [reply] : 'calls' in reply ? reply.calls : [];
    const calls = wanted.map((c, i) => ({
      id: `call_${this.seq}${wanted.length > 1 ? `_${i + 1}` : ''}`,
      type: 'function',
      function: { name: c.tool, arguments: JSON.stringify(c.args) },
    }));
    const text = 'text' in reply ? reply.text : undefined;
    if (!stream) {
      const message = calls.length
        ? { role: 'assistant', content: text ?? null, tool_calls: calls }
        : { role: 'assistant', content: text };
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: 'scripted',
          choices: [{ index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
          usage,
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: unknown, finish: string | null) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: 'scripted', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
    chunk({ role: 'assistant', content: text === undefined ? null : '' }, null);
    if (text !== undefined) chunk({ content: text }, null);
    calls.forEach((call, index) => {
      chunk(
        {
          tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
        },
        null,
      );
      chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }, null);
    });
    chunk({}, calls.length ? 'tool_calls' : 'stop');
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: 'scripted', choices: [], usage })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  }
}
