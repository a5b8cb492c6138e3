/**
 * A scripted model for Gemini CLI: an HTTP server on 127.0.0.1 answering the Gemini API's
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` with one server-sent event. A
 * request is answered by the first unused rule whose trigger matches its last part (a
 * functionResponse of a given function, or a user text containing a given prompt); every request
 * body is logged. The one mock in the Gemini test: a model provider cannot run here.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GeminiPart {
  text?: string;
  /** A thought summary (with `text`). */
  thought?: boolean;
  functionCall?: { name: string; args: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; id?: string; response: { output?: string; error?: string } };
}
export interface GeminiContent {
  role: string;
  parts: GeminiPart[];
}

export interface GeminiRule {
  /** The last part is the response of this function. */
  after?: string;
  /** The last part is a user text holding this. */
  prompt?: string;
  /** The model's parts, or a function of the request's contents. */
  reply: GeminiPart[] | ((contents: GeminiContent[]) => GeminiPart[]);
}

export class ScriptedGemini {
  readonly requests: { url: string; body: { contents?: GeminiContent[]; tools?: unknown[] } }[] = [];
  private readonly used = new Set<number>();
  private server: Server | undefined;

  constructor(private readonly rules: GeminiRule[]) {}

  /** The base URL, for GOOGLE_GEMINI_BASE_URL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  unusedRules(): number[] {
    return this.rules.flatMap((_, i) => (this.used.has(i) ? [] : [i]));
  }

  /** The output (or error) sent back for the first call of `name`, in any logged request. */
  responseTo(name: string): string | undefined {
    for (const { body } of this.requests)
      for (const content of body.contents ?? [])
        for (const part of content.parts)
          if (part.functionResponse?.name === name)
            return part.functionResponse.response.output ?? part.functionResponse.response.error;
    return undefined;
  }

  /** What each call of `name` got back, in order, as the last request sent them. */
  responsesTo(name: string): string[] {
    const contents = this.requests.at(-1)?.body.contents ?? [];
    return contents.flatMap((content) =>
      content.parts.flatMap((part) =>
        part.functionResponse?.name === name
          ? [part.functionResponse.response.output ?? part.functionResponse.response.error ?? '']
          : [],
      ),
    );
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: { contents?: GeminiContent[] } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // not JSON: answered with an empty text below
      }
      this.requests.push({ url: req.url ?? '', body });
      const contents = body.contents ?? [];
      const last = contents.at(-1)?.parts.at(-1);
      const at = this.rules.findIndex(
        (rule, i) =>
          !this.used.has(i) &&
          ((rule.after !== undefined && last?.functionResponse?.name === rule.after) ||
            (rule.prompt !== undefined && last?.text?.includes(rule.prompt) === true)),
      );
      const rule = this.rules[at];
      if (rule) this.used.add(at);
      const parts = rule ? (typeof rule.reply === 'function' ? rule.reply(contents) : rule.reply) : [{ text: '' }];
      const event = {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
        modelVersion: 'scripted',
      };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(event)}\r\n\r\n`);
    });
  }
}
