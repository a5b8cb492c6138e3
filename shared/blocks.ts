/**
 * Content blocks as a provider sent them: text, and the kinds only some providers have (an
 * image, a document, a `tool_reference` from a deferred tool being loaded, a search result).
 * A result or a message keeps its blocks verbatim, so "as the agent sent it" stays exact; where
 * a provider shape has no such block (OpenAI's), or a view wants words, the block is written as
 * its stated text (`blockText`, the one rendering, listed in docs/protocol.md).
 */
import * as z from 'zod';

/** The kinds of blocks kept verbatim that are not text (others may come; they are kept the same way). */
export type VerbatimKind =
  | 'image'
  | 'document'
  | 'tool_reference'
  | 'search_result'
  | 'redacted_thinking'
  | 'server_tool_use'
  | 'web_search_tool_result';

export interface TextBlock {
  type: 'text';
  text: string;
}
/** A block of a kind our vocabulary does not model, with every field it came with. */
export interface VerbatimBlock {
  type: VerbatimKind;
  [field: string]: unknown;
}
export type ContentBlock = TextBlock | VerbatimBlock;

/** The longest block kind: a kind is a short name. */
const KIND_MAX = 64;

/**
 * A block as stored and appended: any kind, its fields kept (they are the provider's, not
 * ours); a text block must have its text.
 */
export const ContentBlockSchema = z
  .looseObject({ type: z.string().min(1).max(KIND_MAX) })
  .refine((b) => b.type !== 'text' || typeof b.text === 'string', {
    message: 'a text block needs its text (a string)',
    path: ['text'],
  }) as unknown as z.ZodType<ContentBlock>;

export function isTextBlock(block: { type: string }): block is TextBlock {
  return block.type === 'text' && typeof (block as { text?: unknown }).text === 'string';
}

const field = (block: Record<string, unknown>, ...path: string[]): string | undefined => {
  let at: unknown = block;
  for (const key of path) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return typeof at === 'string' ? at : undefined;
};

/**
 * A block as text, for a shape or a view that has no such block: a text block is its text;
 * `[image: image/png]`, `[document: <title>]`, `[tool loaded: <name>]`,
 * `[search result: <title>] <source>` and its text; any other kind `[<kind>]`.
 */
export function blockText(block: ContentBlock): string {
  if (isTextBlock(block)) return block.text;
  const b = block as Record<string, unknown>;
  switch (block.type) {
    case 'image': {
      const type = field(b, 'source', 'media_type');
      return type ? `[image: ${type}]` : '[image]';
    }
    case 'document': {
      const name = field(b, 'title') ?? field(b, 'source', 'media_type');
      return name ? `[document: ${name}]` : '[document]';
    }
    case 'tool_reference': {
      const name = field(b, 'tool_name');
      return name ? `[tool loaded: ${name}]` : '[tool loaded]';
    }
    case 'search_result': {
      const texts = Array.isArray(b.content)
        ? (b.content as ContentBlock[]).filter(isTextBlock).map((t) => t.text)
        : [];
      return [`[search result: ${field(b, 'title') ?? ''}] ${field(b, 'source') ?? ''}`.trimEnd(), ...texts].join('\n');
    }
    default:
      return `[${String(block.type)}]`;
  }
}

/** The text of a result's content, whichever form it has: blocks are joined by newlines. */
export function contentText(content: string | readonly ContentBlock[]): string {
  return typeof content === 'string' ? content : content.map(blockText).join('\n');
}
