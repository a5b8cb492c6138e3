/**
 * The MCP server (`retained mcp`), for any agent that speaks MCP (every one of the agent table,
 * and others: Goose, Cursor): the same store and core as the language server. Tools: `peek_value` (the same
 * input as in VS Code), `run_command` (a command's output streamed into a value; the model gets
 * its exit status and the stub, or the output when small) and `list_retained`. Each retained
 * value is also a resource, `retained://<run>/<value>`, and a stub comes with a link to it.
 *
 * Answers are text content only: Claude Code shows the model only `structuredContent` when a
 * result has it, and the stub must reach the model as it is.
 */
import { randomBytes } from 'node:crypto';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';
import { PEEK_TOOL, PEEK_TOOL_DESCRIPTION, PeekToolInput, toPeekParams } from '../../../shared/peekTool';
import { indexEntry, marker, readOneHint } from '../../../shared/stubText';
import { VERSION } from '../../../shared/version';
import { type RunningCommand, startCommand } from '../core/retain/command';
import type { RetentionService } from '../core/service';
import { LineLimit, MCP_LINE_MAX_BYTES } from './lineLimit';

export interface McpOptions {
  /** The run run_command records into. */
  runId: string;
  /** Where run_command runs when no `cwd` is given. */
  workspace: string;
}

/** The most text one resource read returns; a larger value is read with peek_value. */
const RESOURCE_MAX_BYTES = 1 << 20;
/** Values a resource list names, newest runs first. */
const RESOURCE_LIST_MAX = 500;
const RUN_COMMAND_TIMEOUT_MAX_SECONDS = 3600;
const RUN_COMMAND_TIMEOUT_SECONDS = 600;

const RunCommandInput = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(100_000)
    .describe('A shell command line (run with bash -c, or sh -c where there is no bash).'),
  cwd: z.string().min(1).max(4096).optional().describe('The folder to run it in; default the workspace.'),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(RUN_COMMAND_TIMEOUT_MAX_SECONDS)
    .optional()
    .describe(`Kill it after this many seconds (default ${RUN_COMMAND_TIMEOUT_SECONDS}).`),
});

const ListInput = z.strictObject({
  runId: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe("A run's retained values (a session's id is its run), newest first; without it, the runs."),
  tool: z.string().min(1).max(200).optional().describe('Only the values of this tool (Bash, Read, …).'),
  text: z.string().min(1).max(1000).optional().describe('Only the values whose id, tool or subject holds this text.'),
});
/** The most values one list_retained answer names. */
const LIST_MAX = 200;

type Text = { type: 'text'; text: string };
const text = (value: string): Text => ({ type: 'text', text: value });
const failed = (err: unknown) => ({ isError: true, content: [text((err as Error).message)] });

/** The name the client's model knows peek_value by, for the hint in a stub. */
function peekToolFor(clientName: string | undefined): string {
  // Claude Code prefixes MCP tools with the server's name in its configuration, `retained`.
  return clientName === 'claude-code' ? `mcp__retained__${PEEK_TOOL}` : PEEK_TOOL;
}

/**
 * `running`: the commands run_command is running, which serveMcp ends when the client goes (the
 * server then exits, and nothing runs on).
 */
export function createMcpServer(
  service: RetentionService,
  options: McpOptions,
  running = new Set<RunningCommand>(),
): McpServer {
  const server = new McpServer(
    { name: 'retained', version: VERSION },
    { capabilities: { resources: { listChanged: false } } },
  );
  const clientName = () => server.server.getClientVersion()?.name;

  server.registerTool(
    PEEK_TOOL,
    { title: 'Peek Retained Value', description: PEEK_TOOL_DESCRIPTION, inputSchema: PeekToolInput },
    async (input) => {
      try {
        const answer = await service.values.peek(toPeekParams(input));
        return { content: [text(answer.text)] };
      } catch (err) {
        return failed(err);
      }
    },
  );

  server.registerTool(
    'run_command',
    {
      title: 'Run Command',
      description: `Runs a shell command in the workspace. Its output (stdout and stderr) is kept whole; a large one comes back as a stub "${marker('ID')}" with its head, tail and the lines of its errors, to read further with ${PEEK_TOOL}. The first line of the answer is the exit status.`,
      inputSchema: RunCommandInput,
    },
    async (input) => {
      try {
        const command = startCommand(
          service.retainer,
          {
            runId: options.runId,
            callId: `cmd-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`,
            command: input.command,
            cwd: input.cwd ?? options.workspace,
            timeoutMs: (input.timeoutSeconds ?? RUN_COMMAND_TIMEOUT_SECONDS) * 1000,
            arguments: input,
          },
          { peekTool: peekToolFor(clientName()) },
        );
        running.add(command);
        const result = await command.result.finally(() => running.delete(command));
        const status = result.timedOut
          ? `[killed after ${input.timeoutSeconds ?? RUN_COMMAND_TIMEOUT_SECONDS} s]`
          : result.signal
            ? `[killed by ${result.signal}]`
            : `[exit code ${result.exitCode}]`;
        const content: (
          | { type: 'text'; text: string }
          | { type: 'resource_link'; uri: string; name: string; mimeType: string }
        )[] = [text(`${status}\n${result.content}`)];
        if (result.retained && result.valueId)
          content.push({
            type: 'resource_link',
            uri: resourceUri(options.runId, result.valueId),
            name: `#${result.valueId}`,
            mimeType: 'text/plain',
          });
        return { content, isError: result.exitCode !== 0 };
      } catch (err) {
        return failed(err);
      }
    },
  );

  server.registerTool(
    'list_retained',
    {
      title: 'List Retained Values',
      description: `Lists what was retained in a run (a session): each value newest first, with what the call worked on, its size and landmarks, filtered by tool or text; without a run, the runs in the store. Read a value with ${PEEK_TOOL}.`,
      inputSchema: ListInput,
    },
    async (input) => {
      try {
        if (input.runId) {
          const values = await service.values.indexed(input.runId, {
            ...(input.tool ? { tool: input.tool } : {}),
            ...(input.text ? { text: input.text } : {}),
          });
          const shown = values.slice(0, LIST_MAX);
          const tool = peekToolFor(clientName());
          return {
            content: [
              text(
                shown.length
                  ? [
                      ...shown.map(indexEntry),
                      ...(values.length > shown.length ? [`… and ${values.length - shown.length} more`] : []),
                      readOneHint(shown[0]!.valueId, tool),
                    ].join('\n')
                  : `no values in run ${input.runId}${input.tool || input.text ? ' that match' : ''}`,
              ),
            ],
          };
        }
        const runs = await service.listRuns();
        return {
          content: [
            text(
              runs.length
                ? runs
                    .map((r) => `${r.runId}  ${r.valueCount} values, ${r.keptOutBytes} bytes kept out  ${r.updatedAt}`)
                    .join('\n')
                : 'no runs yet',
            ),
          ],
        };
      } catch (err) {
        return failed(err);
      }
    },
  );

  server.registerResource(
    'value',
    new ResourceTemplate('retained://{runId}/{valueId}', {
      list: async () => {
        const resources = [];
        for (const run of await service.listRuns()) {
          for (const value of (await service.values.list({ runId: run.runId })).values) {
            resources.push({
              uri: resourceUri(run.runId, value.valueId),
              name: `#${value.valueId}`,
              description: `${value.tool}: ${value.bytes} bytes, ${value.lines} lines (run ${run.name})`,
              mimeType: 'text/plain',
            });
            if (resources.length >= RESOURCE_LIST_MAX) return { resources };
          }
        }
        return { resources };
      },
    }),
    { title: 'Retained value', description: 'A tool output kept whole by Retained Outputs', mimeType: 'text/plain' },
    async (uri, variables) => {
      const runId = String(variables.runId);
      const valueId = String(variables.valueId);
      const meta = await service.values.meta({ runId, valueId });
      const head = await service.store.values.readHead(meta.runId, meta.valueId, RESOURCE_MAX_BYTES);
      const cut =
        meta.bytes > RESOURCE_MAX_BYTES
          ? `\n[cut: the first ${RESOURCE_MAX_BYTES} of ${meta.bytes} bytes; read the rest with peek_value {"id":"${meta.valueId}"}]`
          : '';
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: head + cut }] };
    },
  );
  return server;
}

export function resourceUri(runId: string, valueId: string): string {
  return `retained://${runId}/${valueId}`;
}

/** Serves MCP over stdin and stdout until the client goes; a line past the limit is refused, and the server reads on. */
export async function serveMcp(service: RetentionService, options: McpOptions): Promise<void> {
  const running = new Set<RunningCommand>();
  const server = createMcpServer(service, options, running);
  const input = process.stdin.pipe(
    new LineLimit((bytes) =>
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `a message of ${bytes} bytes, over the ${MCP_LINE_MAX_BYTES}-byte limit of one line, was not read` } })}\n`,
      ),
    ),
  );
  const transport = new StdioServerTransport(input as unknown as typeof process.stdin);
  transport.onclose = () => {
    for (const command of running) command.signal('SIGKILL');
    service.dispose();
  };
  await server.connect(transport);
}
