/**
 * The transcript's events, declared once as schemas: a run is one JSON event per line, and
 * every reader and writer (the server, an import, the CLI, the tests) parses them here. A line
 * read from a store is parsed leniently (fields this version does not know are dropped, so a
 * newer writer's run still reads); an event a client appends is parsed strictly (an unknown
 * field is a mistake, and refused naming it).
 */
import * as z from 'zod';
import { IMPORT_FORMATS } from './agents';
import { type ContentBlock, ContentBlockSchema } from './blocks';
import { LANDMARK_KINDS, type LandmarkKind } from './settings';

/**
 * A format, by its name or the one it had before: VS Code's Copilot Chat replays were `copilot`
 * (runs imported then say so in their transcript, and scripts pass it).
 */
export const ImportFormatSchema = z.preprocess((v) => (v === 'copilot' ? 'copilot-chat' : v), z.enum(IMPORT_FORMATS));

export const STOP_REASONS = ['end_turn', 'interrupted', 'aborted', 'error'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/**
 * How a command ended: its exit code, or the signal that killed it (and whether that was a
 * timeout). A result whose command's end is known says it in its stub.
 */
const exitSchema = (object: typeof z.object | typeof z.strictObject) =>
  z.union([
    object({ code: z.number().int().min(-2147483648).max(2147483647) }),
    object({ signal: z.string().regex(/^SIG[A-Z0-9]{1,12}$/), timedOut: z.literal(true).optional() }),
  ]);
export const ExitSchema = exitSchema(z.strictObject);
export type Exit = z.infer<typeof ExitSchema>;

/** The longest id, tool name or other short name an event carries. */
const NAME_MAX = 1024;
const name = z.string().min(1).max(NAME_MAX);

/** The event schemas, built with `object`: lenient (z.object) or strict (z.strictObject) all the way down. */
function eventShapes(object: typeof z.object | typeof z.strictObject) {
  const Base = {
    /** ISO time; filled in when the event is appended without one. */
    ts: z.string().max(64).optional(),
    /** The agent turn this event belongs to (a user message and what the agent did about it), when the writer counts them. */
    turn: z.number().int().min(0).optional(),
    /**
     * In an imported run: the agent's own items this event was made from, as it sent them (a
     * Codex rollout's Responses input items), so its requests are rebuilt as they were sent.
     */
    wire: z.array(z.unknown()).max(10_000).optional(),
  };

  const ToolCallSchema = object({
    id: name,
    name,
    /** The arguments object; for a custom (free-form) tool, the raw input string. */
    arguments: z.unknown().optional(),
    /** A free-form tool (OpenAI Responses `custom_tool_call`, e.g. Codex's apply_patch): its input is text, not JSON. */
    custom: z.literal(true).optional(),
  });

  /** Where an imported run came from: the agent's own session file. */
  const RunSourceSchema = object({
    format: ImportFormatSchema,
    /** The session file, as it was given to the import. */
    path: z.string(),
    /** The agent's session id and version, when the file names them. */
    session: z.string().optional(),
    version: z.string().optional(),
    /**
     * How faithfully the agent's model calls could be rebuilt: `exact`, each of them, from the
     * request records the file keeps (Claude Code 2.1.3xx `api-request`); `partial`, some of
     * them (each other one's `model_call` says why not); `conversation`, from its messages alone.
     */
    fidelity: z.enum(['exact', 'partial', 'conversation']),
    /** The session's first typed prompt, on one line and cut: what the run is called in a list. */
    title: z.string().max(200).optional(),
  });

  /**
   * A reasoning block as the provider returned it, kept verbatim: Anthropic's thinking with its
   * signature, or OpenAI's reasoning item with its encrypted content. Never stubbed.
   */
  const ThinkingSchema = object({
    text: z.string(),
    signature: z.string().optional(),
    encryptedContent: z.string().optional(),
    /** Anthropic's `redacted_thinking`: its data, sent back as it came (`text` is empty). */
    redacted: z.string().optional(),
  });

  /** A tool result as content blocks, as the agent sent it: text, images, a tool_reference, kept verbatim. */
  const BlocksSchema = z.array(ContentBlockSchema).max(10_000);
  /** Fields of a request or a message besides what the events model (`output_config`), kept as sent. */
  const FieldsSchema = z.record(z.string().max(NAME_MAX), z.unknown());

  /** The stub-shaping settings an older event's stub was made with. */
  const PreviewSchema = object({
    previewHeadLines: z.number().int().min(0),
    previewTailLines: z.number().int().min(0),
    /** The name the agent's model knows peek_value by, when not that (`mcp__retained__peek_value`). */
    peekTool: z.string().max(200).optional(),
    /**
     * `read`: the stub stands in for a file read that the agent numbers as it numbers a file
     * (Claude Code's Read: `N<tab>line`): the stub is written in that numbering, only the head, each
     * line under the number the agent gives it, from `firstLine` (line 1 of the value; default 1).
     */
    style: z.literal('read').optional(),
    firstLine: z.number().int().min(1).optional(),
    /** Landmark pattern overrides in force when the stub was made (absent: the built-in ones). */
    landmarkPatterns: z
      .partialRecord(z.enum(LANDMARK_KINDS as [LandmarkKind, ...LandmarkKind[]]), z.string())
      .optional(),
  });

  return {
    run_started: {
      ...Base,
      type: z.literal('run_started'),
      tools: z.array(z.string().max(NAME_MAX)),
      model: z.string().optional(),
      agent: z.string().optional(),
      /** Set on an imported run: the agent sent its own outputs, never Retained Outputs' stubs. */
      source: RunSourceSchema.optional(),
    },
    user: {
      ...Base,
      type: z.literal('user'),
      text: z.string(),
      /** Text the agent added to the user's turn (a system reminder, a command record), not typed by the user. */
      injected: z.boolean().optional(),
      /** Starts a user message of its own, even right after another (an agent that sends two in a row). */
      split: z.boolean().optional(),
      /** A block of the message that is not text (an image the user pasted), verbatim; `text` is its stated rendering. */
      block: ContentBlockSchema.optional(),
    },
    /** A `role: "system"` message the agent put into the conversation (Claude Code's attachments). */
    system: {
      ...Base,
      type: z.literal('system'),
      text: z.string(),
      /** The message's fields besides its role and content, as sent (Claude Code's `output_config`). */
      fields: FieldsSchema.optional(),
    },
    assistant: {
      ...Base,
      type: z.literal('assistant'),
      thinking: z.array(ThinkingSchema).optional(),
      text: z.string().optional(),
      toolCalls: z.array(ToolCallSchema).optional(),
      /**
       * The provider's id of the response this event is part of. Consecutive assistant events
       * with the same id are one response (one model call): an import splits a response whose
       * blocks come in an order one event cannot hold (text, thinking, text).
       */
      response: z.string().optional(),
      /**
       * The provider's own count of the model call that produced this response, where the
       * agent's file keeps it (on the response's first event): uncached input, cache reads and
       * writes, output.
       */
      usage: z
        .strictObject({
          input: z.number().int().min(0),
          cacheRead: z.number().int().min(0),
          cacheWrite: z.number().int().min(0),
          /** Of the cache writes, those with the 1-hour lifetime (priced apart). */
          cacheWrite1h: z.number().int().min(0).optional(),
          output: z.number().int().min(0),
        })
        .optional(),
    },
    /**
     * A tool's result. Its body is in the event (`result`) or, once retained, only in its value
     * file (`valueId`, with the stub the model got and the sizes the figures need): a run's
     * transcript then stays as small as what the model saw, and reading it never reads a retained
     * output. The value is durable, immutable and hashed before the event is written.
     */
    tool_call_finished: {
      ...Base,
      type: z.literal('tool_call_finished'),
      callId: name,
      tool: z.string().max(NAME_MAX),
      /** The full result, when it is kept here rather than in a value file. */
      result: z.string().optional(),
      isError: z.boolean().optional(),
      /** How the command ended, when the result is a command's. */
      exit: exitSchema(object).optional(),
      durationMs: z.number().min(0).optional(),
      /** The call's arguments, for a result whose call no assistant event recorded. */
      arguments: z.unknown().optional(),
      /** Set when the result was retained: its value file, size, hash and stub. */
      valueId: z.string().max(NAME_MAX).optional(),
      bytes: z.number().int().min(0).optional(),
      lines: z.number().int().min(0).optional(),
      sha256: z.string().max(64).optional(),
      /** The stub the model got, as it was sent. */
      stub: z.string().optional(),
      /** The full result's size as a JSON string, and its tokens (estimated), for figures without reading it. */
      jsonBytes: z.number().int().min(0).optional(),
      tokens: z.number().int().min(0).optional(),
      /** The settings an older event's stub was made with (it carries `result`, not `stub`). */
      preview: PreviewSchema.optional(),
      /**
       * In an imported run: what the agent actually sent the model, when that is not `result`
       * (Claude Code's 2 KB persisted-output preview, Codex's truncation, content blocks).
       */
      sent: z.union([z.string(), BlocksSchema]).optional(),
      /** In an imported run: why the full output could not be recovered (its file is gone). */
      lost: z.string().optional(),
      /**
       * A guard withheld the result: `result` is the notice the model got, and the original is in
       * `file` (relative to the store) when its write got that far.
       */
      withheld: object({
        outcome: z.enum(['written', 'failed', 'unfinished', 'skipped']),
        file: z.string().max(200).optional(),
      }).optional(),
    },
    turn_ended: { ...Base, type: z.literal('turn_ended'), stopReason: z.enum(STOP_REASONS) },
    /**
     * The history restarts here: later model calls send the summary (as a user message), then
     * what follows. An agent's compaction, or a rewind to an earlier point (`reason: 'rewind'`).
     */
    compaction: {
      ...Base,
      type: z.literal('compaction'),
      summary: z.string().optional(),
      reason: z.enum(['manual', 'auto', 'rewind']).optional(),
      /** The agent's own id of it (OpenCode's message), where a hook records it: asked again, it hands the same index. */
      ref: z.string().max(NAME_MAX).optional(),
    },
    /**
     * The system prompt and the tools an agent sends with its model calls, once per change
     * (an import from a file that records them); a `model_call` names the one it sent by `hash`.
     */
    request_shape: {
      ...Base,
      type: z.literal('request_shape'),
      hash: z.string().min(1).max(128),
      /** As the provider takes it: Anthropic's `system` (a string or text blocks), OpenAI's `instructions`. */
      system: z.unknown().optional(),
      tools: z.array(z.unknown()).max(10_000).optional(),
    },
    /**
     * The agent called the model here, sending the history before this event (from the last
     * compaction). Recorded where the agent's file says so (an import); without these, each
     * response marks the model call that produced it.
     */
    model_call: {
      ...Base,
      type: z.literal('model_call'),
      /** The request_shape it sent. */
      shape: z.string().min(1).max(128).optional(),
      /** The request's other fields as the file records them (model, max_tokens, thinking, …). */
      fields: FieldsSchema.optional(),
      /** Where the request marked its cache breakpoints: a path into it, and the mark. */
      cacheControl: z
        .array(
          object({ path: z.array(z.union([z.string().max(64), z.number().int().min(0)])).max(16), value: z.unknown() }),
        )
        .max(64)
        .optional(),
      /** Set when this request could not be rebuilt exactly from the file, and says why: it is rebuilt from the conversation. */
      rebuilt: z.string().max(2000).optional(),
    },
  } as const;
}

const lenient = eventShapes(z.object);
const strict = eventShapes(z.strictObject);

type Shapes = typeof lenient;
type Kind = keyof Shapes;

/** A result kept in a value names it with its stub and sizes; otherwise it holds the result. */
const whole = (e: {
  type: string;
  result?: unknown;
  valueId?: unknown;
  stub?: unknown;
  bytes?: unknown;
  lines?: unknown;
}) =>
  e.type !== 'tool_call_finished' ||
  e.result !== undefined ||
  (e.valueId !== undefined && e.stub !== undefined && e.bytes !== undefined && e.lines !== undefined);
const WHOLE = {
  message: 'a result needs `result`, or `valueId`, `stub`, `bytes` and `lines` naming its value',
  path: ['result'],
};

/** An event as a store holds it: fields this version does not know are dropped. */
export const StoredEventSchema = z
  .discriminatedUnion(
    'type',
    Object.values(lenient).map((shape) => z.object(shape)) as unknown as [z.ZodObject<Shapes['user']>],
  )
  .refine(whole, WHOLE) as unknown as z.ZodType<TranscriptEvent>;

/** An event as a client appends it: an unknown field is refused, naming it. */
export const NewEventSchema = z
  .discriminatedUnion(
    'type',
    Object.values(strict).map((shape) => z.strictObject(shape)) as unknown as [z.ZodObject<Shapes['user']>],
  )
  .refine(whole, WHOLE) as unknown as z.ZodType<TranscriptEvent>;

type EventOf<K extends Kind> = z.infer<z.ZodObject<Shapes[K]>>;
export type RunStartedEvent = EventOf<'run_started'>;
export type UserEvent = EventOf<'user'>;
export type SystemEvent = EventOf<'system'>;
export type AssistantEvent = EventOf<'assistant'>;
export type ToolCallFinishedEvent = EventOf<'tool_call_finished'>;
export type TurnEndedEvent = EventOf<'turn_ended'>;
export type CompactionEvent = EventOf<'compaction'>;
export type RequestShapeEvent = EventOf<'request_shape'>;
export type ModelCallEvent = EventOf<'model_call'>;
export type ToolCall = NonNullable<AssistantEvent['toolCalls']>[number];
export type Thinking = NonNullable<AssistantEvent['thinking']>[number];
export type RunSource = NonNullable<RunStartedEvent['source']>;
export type { ContentBlock };
export type PreviewSettings = NonNullable<ToolCallFinishedEvent['preview']>;
export type TranscriptEvent =
  | RunStartedEvent
  | UserEvent
  | SystemEvent
  | AssistantEvent
  | ToolCallFinishedEvent
  | TurnEndedEvent
  | CompactionEvent
  | RequestShapeEvent
  | ModelCallEvent;
