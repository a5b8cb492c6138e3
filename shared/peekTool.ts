/**
 * `peek_value`, the model-facing tool, declared once for every door an agent comes through: the
 * language-model tool in VS Code (package.json's `languageModelTools`, held equal to this by a
 * test), the MCP server, and the hint every stub ends with.
 */
import * as z from 'zod';
import type { TranscriptEvent } from './events';
import { PEEK_TOOL } from './history';
import { PeekInput, type PeekParams } from './protocol';

export { PEEK_TOOL };

export const PEEK_TOOL_DESCRIPTION =
  'Reads a retained value: a large tool result that was replaced in your context by a stub beginning "[retained #ID]". Pass the ID from the stub as "id". ' +
  'To read lines, pass "start" and "end" (1-based, inclusive, at most 400 lines per call); use this when you know where to look, e.g. the stub shows the line numbers of its head and tail. ' +
  'To find something, pass "query" (a literal substring; set "ignoreCase", or "regex" for a regular expression in RE2 syntax, which has no lookaround or backreferences) and optionally "context" (lines around each match, up to 20); use this first in a large value rather than reading it page by page. ' +
  'When the stub lists "Landmarks" (an exit code, the lines of the first errors, failures, warnings or stack traces), pass "landmark" ("error", "failure", "warning" or "trace") to jump straight there. ' +
  'Every returned line starts with its line number and ": " (e.g. "12: text"); leave that gutter out when you quote the line in an edit. ' +
  'An answer is at most 16 KiB: when it is cut, its last line says so and gives the exact arguments to continue.';

/** The tool's input: the peek request, with the value id called `id`, as stubs print it. */
export const PeekToolInput = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(1024)
    .describe('The value id from the stub, e.g. "toolu_01ABC" from "[retained #toolu_01ABC]".'),
  ...PeekInput.shape,
  runId: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe('Only needed when the same id exists in several runs; the error then lists them.'),
});
export type PeekToolInput = z.infer<typeof PeekToolInput>;

export function toPeekParams(input: PeekToolInput): PeekParams {
  const { id, ...rest } = input;
  return { valueId: id, ...rest };
}

/** What the tool is doing, in a few words, for the agent's progress line. */
export function describePeek(input: PeekToolInput): string {
  if (input.landmark !== undefined) return `Jumping to the ${input.landmark} landmarks of #${input.id}`;
  if (input.query !== undefined) return `Searching #${input.id} for "${input.query}"`;
  if (input.start !== undefined)
    return `Reading lines ${input.start}-${input.end ?? input.start + 399} of #${input.id}`;
  return `Reading #${input.id}`;
}

/** The input as JSON Schema, for a tool list (package.json, MCP). */
export function peekToolJsonSchema(): Record<string, unknown> {
  const { $schema: _schema, ...schema } = z.toJSONSchema(PeekToolInput) as Record<string, unknown>;
  // A whole number's implied bounds (JavaScript's safe integers) say nothing to a model.
  for (const property of Object.values(schema.properties as Record<string, Record<string, unknown>>)) {
    if (property.maximum === Number.MAX_SAFE_INTEGER) delete property.maximum;
  }
  return schema;
}

/** A run offers peek_value unless its run_started event lists tools without it. */
export function offersPeek(events: readonly TranscriptEvent[]): boolean {
  const started = events.find((e) => e.type === 'run_started');
  return started?.type === 'run_started' ? started.tools.includes(PEEK_TOOL) : true;
}
