/**
 * The history a model is sent, as replay rebuilds it: neutral messages of blocks, and the three
 * provider shapes an agent actually sends (Anthropic Messages, OpenAI Chat Completions, OpenAI
 * Responses). Declared here because every side reads them: the server builds them, the
 * extension and the CLI hand them to agents, the inspector shows them.
 */
import type { ContentBlock, VerbatimBlock } from './blocks';
import type { StopReason } from './events';

/** The model-facing tool that reads a retained value back. */
export const PEEK_TOOL = 'peek_value';

export type ResultContent = string | ContentBlock[];

export type Block =
  | { type: 'thinking'; thinking: string; signature?: string; encryptedContent?: string; redacted?: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown; custom?: true }
  | { type: 'tool_result'; tool_use_id: string; content: ResultContent; is_error?: boolean }
  /** A block of the provider's own kind (an image in a user message): verbatim to Anthropic, its stated text elsewhere. */
  | { type: 'provider'; block: VerbatimBlock };

export interface Message {
  role: 'user' | 'assistant' | 'system';
  content: Block[];
  /** The message's fields besides role and content, as the agent sent them (Anthropic only). */
  fields?: Record<string, unknown>;
}

/**
 * Two views of one run. `sent`: what the agent sent the model (for an imported run, the agent's
 * own cuts). `retained`: the same history with Retained Outputs in the loop (for an imported
 * run, a simulation, labelled as one).
 */
export const VIEWS = ['sent', 'retained'] as const;
/** The inspector's view when none is asked for: what was sent. */
export const INSPECT_VIEW: View = 'sent';
/** A replay's view when none is asked for: the history with Retained Outputs (what a harness sends next). */
export const REPLAY_VIEW: View = 'retained';
/** The inspector's page: the rows it asks for at a time, and the first page a run's index keeps. */
export const INSPECT_PAGE_ROWS = 100;
export type View = (typeof VIEWS)[number];

export const PROVIDER_SHAPES = ['anthropic', 'openai-chat', 'openai-responses'] as const;
export type ProviderShape = (typeof PROVIDER_SHAPES)[number];
export const REPLAY_SHAPES = ['text', 'structured', ...PROVIDER_SHAPES] as const;
export type ReplayShape = (typeof REPLAY_SHAPES)[number];

export type AnthropicBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: ResultContent; is_error?: boolean }
  | VerbatimBlock;
export interface AnthropicMessage {
  role: Message['role'];
  content: AnthropicBlock[];
  [field: string]: unknown;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export type ResponsesItem =
  | { type: 'message'; role: 'user' | 'system'; content: { type: 'input_text'; text: string }[] }
  | { type: 'message'; role: 'assistant'; content: { type: 'output_text'; text: string }[] }
  | { type: 'reasoning'; encrypted_content: string; summary: { type: 'summary_text'; text: string }[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string }
  | { type: 'custom_tool_call'; call_id: string; name: string; input: string }
  | { type: 'custom_tool_call_output'; call_id: string; output: string };

/** A history in one shape. For the Responses API, `messages` holds the input items. */
export type Projected =
  | { shape: 'structured'; messages: Message[]; stopReason?: StopReason }
  | { shape: 'anthropic'; messages: AnthropicMessage[]; stopReason?: StopReason }
  | { shape: 'openai-chat'; messages: ChatMessage[]; stopReason?: StopReason }
  | { shape: 'openai-responses'; messages: ResponsesItem[]; stopReason?: StopReason };

/** What a projection sends, per message and in total, against a naive full replay. */
export interface HistoryStats {
  bytesSent: number;
  bytesNaive: number;
  tokensSent: number;
  tokensNaive: number;
  tokenizer: string;
  perMessage: { bytesSent: number; tokensSent: number }[];
}
