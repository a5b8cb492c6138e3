// A stdio MCP server with one tool, `approve`: Claude Code's --permission-prompt-tool for the
// recordings, answering every permission question with "allow" (plan mode's ExitPlanMode asks one).
// Newline-delimited JSON-RPC, as MCP's stdio transport is.
import { createInterface } from 'node:readline';

const reply = (id, result) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
const TOOL = {
  name: 'approve',
  description: 'Answers a permission prompt: always allow.',
  inputSchema: { type: 'object', properties: { tool_name: { type: 'string' }, input: { type: 'object' } } },
};

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return;
  if (message.method === 'initialize')
    reply(message.id, {
      protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'approver', version: '1.0.0' },
    });
  else if (message.method === 'tools/list') reply(message.id, { tools: [TOOL] });
  else if (message.method === 'tools/call') {
    const answer = { behavior: 'allow', updatedInput: message.params?.arguments?.input ?? {} };
    reply(message.id, { content: [{ type: 'text', text: JSON.stringify(answer) }] });
  } else reply(message.id, {});
});
