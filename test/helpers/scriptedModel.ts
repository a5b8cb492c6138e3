/**
 * A scripted model: an HTTP server on 127.0.0.1 that speaks the Anthropic Messages API (with
 * `stream: true`) well enough for a real Claude Code to run against it offline. Every request
 * body is logged, so a test knows exactly what the agent sent the model.
 *
 * The script is a list of rules. A request is answered by the first unused rule whose trigger
 * matches its last user message (Claude Code may put a `role: "system"` message after it): a
 * tool_result for a given tool_use id, or a text block containing a given string (or, with
 * `anywhere`, any user message's). Requests without tools (titles) get a short text.
 * This is the one mock in the real-agent tests: a model provider cannot run here.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface ScriptRule {
  /** Matches when the last user message holds a tool_result for this tool_use id. */
  after?: string;
  /** Matches when the last user message holds a text block containing this. */
  prompt?: string;
  /** Matches when any user message of the request holds a text block containing this. */
  anywhere?: string;
  /** The response, or how to make it from the request (to name a file the request names). */
  reply: ScriptBlock[] | ((body: AnthropicBody) => ScriptBlock[]);
  /** The usage the response reports (a big `input_tokens` makes Claude Code compact on its own). */
  usage?: Usage;
  /** Waits this long before answering. */
  delayMs?: number;
}

export interface ScriptOptions {
  /** Appends each logged request as a JSON line here, when given. */
  logFile?: string;
  /** The model the responses name (Claude Code keeps thinking across a resume only when it is the one it asked for). */
  model?: string;
}

export interface AnthropicBody {
  messages?: { role: string; content: string | { type: string; text?: string; tool_use_id?: string }[] }[];
  tools?: unknown[];
  stream?: boolean;
}

export interface LoggedRequest {
  url: string;
  body: unknown;
  /** Which rule answered it (index in the script), or why none did. */
  answeredBy: number | 'no-tools' | 'unmatched' | 'count_tokens' | 'other';
}

export class ScriptedModel {
  readonly requests: LoggedRequest[] = [];
  private readonly used = new Set<number>();
  private server: Server | undefined;

  private readonly logFile: string | undefined;
  private readonly model: string;

  constructor(
    private readonly rules: ScriptRule[],
    options: ScriptOptions | string = {},
  ) {
    const { logFile, model } = typeof options === 'string' ? { logFile: options, model: undefined } : options;
    this.logFile = logFile;
    this.model = model ?? 'claude-scripted';
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Rules no request has used yet (a script that did not run to its end). */
  unusedRules(): number[] {
    return this.rules.flatMap((_, i) => (this.used.has(i) ? [] : [i]));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: AnthropicBody | undefined;
      try {
        body = raw ? (JSON.parse(raw) as AnthropicBody) : undefined;
      } catch {
        body = undefined;
      }
      const url = req.url ?? '';
      const log = (answeredBy: LoggedRequest['answeredBy']) => {
        const entry: LoggedRequest = { url, body: body ?? raw, answeredBy };
        this.requests.push(entry);
        if (this.logFile) appendFileSync(this.logFile, `${JSON.stringify(entry)}\n`);
      };
      if (url.includes('count_tokens')) {
        log('count_tokens');
        return json(res, { input_tokens: 100 });
      }
      if (!url.startsWith('/v1/messages') || !body) {
        log('other');
        return json(res, {});
      }
      if (!Array.isArray(body.tools) || body.tools.length === 0 || body.stream !== true) {
        log('no-tools');
        if (body.stream !== true)
          return json(res, message(this.model, [{ type: 'text', text: 'Scripted title' }], 'end_turn'));
        return stream(res, this.model, [{ type: 'text', text: 'Scripted answer.' }]);
      }
      const index = this.match(body);
      log(index ?? 'unmatched');
      const rule = index === undefined ? undefined : this.rules[index]!;
      const answer = () =>
        stream(
          res,
          this.model,
          rule
            ? typeof rule.reply === 'function'
              ? rule.reply(body)
              : rule.reply
            : [{ type: 'text', text: '[scripted model: no rule matched this request]' }],
          rule?.usage,
        );
      if (rule?.delayMs) setTimeout(answer, rule.delayMs);
      else answer();
    });
  }

  private match(body: AnthropicBody): number | undefined {
    const blocksOf = (m: NonNullable<AnthropicBody['messages']>[number] | undefined) =>
      typeof m?.content === 'string' ? [{ type: 'text', text: m.content }] : (m?.content ?? []);
    const blocks = blocksOf(body.messages?.findLast((m) => m.role === 'user'));
    const texts = (list: { type: string; text?: string }[], part: string) =>
      list.some((b) => b.type === 'text' && (b.text ?? '').includes(part));
    for (const [i, rule] of this.rules.entries()) {
      if (this.used.has(i)) continue;
      const hit = rule.after
        ? blocks.some((b) => b.type === 'tool_result' && b.tool_use_id === rule.after)
        : rule.anywhere !== undefined
          ? (body.messages ?? []).some((m) => m.role === 'user' && texts(blocksOf(m), rule.anywhere!))
          : rule.prompt !== undefined && texts(blocks, rule.prompt);
      if (hit) {
        this.used.add(i);
        return i;
      }
    }
    return undefined;
  }
}

let messageCount = 0;
const nextId = () => `msg_scripted_${String(++messageCount).padStart(4, '0')}`;
const USAGE: Usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function message(model: string, content: ScriptBlock[], stopReason: string, usage = USAGE) {
  return {
    id: nextId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}

/** The reply as server-sent events, block by block, the way the real API streams it. */
function stream(res: ServerResponse, model: string, blocks: ScriptBlock[], usage?: Usage): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  send('message_start', { type: 'message_start', message: { ...message(model, [], stop, usage), stop_reason: null } });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else if (block.type === 'thinking') {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'thinking_delta', thinking: block.thinking },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: block.signature },
      });
    } else if (block.type === 'redacted_thinking') {
      send('content_block_start', { type: 'content_block_start', index, content_block: block });
    } else {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}
