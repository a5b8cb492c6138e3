/**
 * A scripted model for Codex: an HTTP server on 127.0.0.1 that answers the OpenAI Responses API
 * (`POST /v1/responses`, `stream: true`) with server-sent events. Like ScriptedModel, a request is
 * answered by the first unused rule whose trigger matches its last input item (a
 * function_call_output for a given call id, or a user message containing a given text); every
 * request body is logged. The one mock in the Codex test: a model provider cannot run here.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ResponsesReply =
  | { type: 'function_call'; call_id: string; name: string; namespace?: string; arguments: string }
  | { type: 'message'; text: string }
  | { type: 'reasoning'; summary: string; encrypted: string };

export interface ResponsesRule {
  after?: string;
  prompt?: string;
  /** The reply, or a function of the request's input (to use an id the agent's tool made). */
  reply: ResponsesReply[] | ((input: Item[]) => ResponsesReply[]);
}

export type Item = { type?: string; role?: string; call_id?: string; content?: { text?: string }[] | string };

export class ScriptedResponses {
  readonly requests: { body: { input?: Item[]; tools?: { name?: string; type?: string }[] } }[] = [];
  private readonly used = new Set<number>();
  private server: Server | undefined;
  private seq = 0;

  constructor(
    private readonly rules: ResponsesRule[],
    /** Appends each request body as a JSON line here, when given. */
    private readonly logFile?: string,
  ) {}

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

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: { input?: Item[] } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // not JSON: answered with an empty reply below
      }
      if (!req.url?.endsWith('/responses')) {
        res.writeHead(404).end();
        return;
      }
      this.requests.push({ body });
      if (this.logFile) appendFileSync(this.logFile, `${JSON.stringify({ url: req.url, body })}\n`);
      const index = this.match(body.input ?? []);
      const reply =
        index === undefined
          ? [{ type: 'message' as const, text: '[scripted model: no rule matched]' }]
          : this.rules[index]!.reply;
      this.stream(res, typeof reply === 'function' ? reply(body.input ?? []) : reply);
    });
  }

  private match(input: Item[]): number | undefined {
    const last = input.at(-1);
    const text = (item: Item | undefined) =>
      typeof item?.content === 'string' ? item.content : (item?.content ?? []).map((c) => c.text ?? '').join('\n');
    for (const [i, rule] of this.rules.entries()) {
      if (this.used.has(i)) continue;
      const hit = rule.after
        ? input.some((item) => /_output$/.test(item.type ?? '') && item.call_id === rule.after) &&
          /_output$/.test(last?.type ?? '')
        : rule.prompt !== undefined && input.some((item) => item.role === 'user' && text(item).includes(rule.prompt!));
      if (hit) {
        this.used.add(i);
        return i;
      }
    }
    return undefined;
  }

  private stream(res: ServerResponse, reply: ResponsesReply[]): void {
    const id = `resp_${++this.seq}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const response = {
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'in_progress',
      model: 'gpt-5-codex',
      output: [],
    };
    send('response.created', { response });
    const items = reply.map((r, i) =>
      r.type === 'reasoning'
        ? {
            type: 'reasoning',
            id: `rs_${this.seq}_${i}`,
            summary: [{ type: 'summary_text', text: r.summary }],
            encrypted_content: r.encrypted,
          }
        : r.type === 'function_call'
          ? {
              type: 'function_call',
              id: `fc_${this.seq}_${i}`,
              call_id: r.call_id,
              name: r.name,
              ...(r.namespace ? { namespace: r.namespace } : {}),
              arguments: r.arguments,
              status: 'completed',
            }
          : {
              type: 'message',
              id: `msg_${this.seq}_${i}`,
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: r.text, annotations: [] }],
            },
    );
    items.forEach((item, output_index) => {
      send('response.output_item.added', { output_index, item });
      send('response.output_item.done', { output_index, item });
    });
    const usage = {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    };
    send('response.completed', { response: { ...response, status: 'completed', output: items, usage } });
    res.end();
  }
}
