/**
 * A run as a report a developer attaches to a bug: JSON (the protocol's own shapes: the run's
 * summary, the inspector's outline, `retained/usage`, the events), Markdown, or one HTML file
 * that needs nothing else (no script, no link out, every text escaped). Pure: what the
 * inspection read in, a string out. Bodies are clipped as the inspector's cells are; a retained
 * result is named by its value, whose bytes stay in the store.
 */
import type { TranscriptEvent } from '../../../../shared/events';
import { formatBytes, formatTokens } from '../../../../shared/format';
import type { Outline, RunSummary } from '../../../../shared/protocol';
import { BREAK_WORDS, type RunUsage, USAGE_PART_WORDS, USAGE_PARTS } from '../../../../shared/usage';
import { clip } from './rows';

export const REPORT_FORMATS = ['json', 'markdown', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ReportInput {
  run: RunSummary;
  outline: Outline;
  usage: RunUsage;
  events: readonly TranscriptEvent[];
  /** Only what model call k was sent (its events, its figures); absent: the whole run. */
  modelCall?: number;
}

/** Each event as a heading and its text, clipped. */
function eventParts(event: TranscriptEvent): { title: string; body: string } {
  switch (event.type) {
    case 'run_started':
      return {
        title: 'run started',
        body: `tools: ${event.tools.join(', ')}${event.model ? `\nmodel: ${event.model}` : ''}`,
      };
    case 'user':
      return { title: event.injected ? 'injected into the user turn' : 'user', body: event.text };
    case 'system':
      return { title: 'system', body: event.text };
    case 'assistant':
      return {
        title: 'assistant',
        body: [
          event.text ?? '',
          ...(event.toolCalls ?? []).map((c) => `→ ${c.name} ${JSON.stringify(c.arguments ?? {})}`),
        ]
          .filter(Boolean)
          .join('\n'),
      };
    case 'tool_call_finished':
      return {
        title: `${event.tool} result${event.isError ? ' (error)' : ''}${event.valueId ? ` · retained #${event.valueId}, ${formatBytes(event.bytes ?? 0)}` : ''}`,
        body: event.valueId ? (event.stub ?? '') : (event.result ?? ''),
      };
    case 'compaction':
      return { title: 'compaction', body: event.summary ?? '' };
    case 'turn_ended':
      return { title: 'turn ended', body: event.stopReason };
    case 'model_call':
      return { title: 'model call', body: '' };
    case 'request_shape':
      return { title: 'request shape', body: '' };
  }
}

function calls(input: ReportInput) {
  const made = input.usage.modelCalls.slice(0, -1);
  return input.modelCall ? made.filter((c) => c.modelCall === input.modelCall) : made;
}

function shownEvents(input: ReportInput): readonly TranscriptEvent[] {
  if (!input.modelCall) return input.events;
  const cut = input.usage.modelCalls[input.modelCall - 1]?.cut ?? input.events.length;
  return input.events.slice(0, cut);
}

const largest = (parts: Record<string, number>) =>
  USAGE_PARTS.filter((p) => parts[p]! > 0)
    .sort((a, b) => parts[b]! - parts[a]!)
    .slice(0, 3)
    .map((p) => `${USAGE_PART_WORDS[p]} ${formatTokens(parts[p]!)}`)
    .join(', ');

const usd = (n: number | undefined) => (n === undefined ? '' : `$${n.toFixed(4)}`);

/** Which figures are the provider's and which estimated, in a sentence. */
function basisSentence(usage: RunUsage): string {
  const made = usage.modelCalls.length - 1;
  const counted = usage.totals.counted;
  return counted === 0
    ? "Cache reads and writes are simulated (the Messages API's billing)."
    : `${counted === made ? 'Every' : `${counted} of ${made}`} model call's figures are the provider's own counts${counted === made ? '' : ' (basis provider), the rest estimated'}.`;
}

export function report(input: ReportInput, format: ReportFormat): string {
  if (format === 'json') {
    const { run, outline, usage } = input;
    return `${JSON.stringify(
      {
        run,
        ...(input.modelCall ? { modelCall: input.modelCall } : {}),
        outline,
        usage: input.modelCall ? { ...usage, modelCalls: calls(input) } : usage,
        events: shownEvents(input),
      },
      null,
      2,
    )}\n`;
  }
  return format === 'markdown' ? markdown(input) : html(input);
}

/**
 * Characters a report shows by name instead of sending them on: control characters but tab and
 * newline (a terminal escape in a command's output would run in the terminal of whoever `cat`s
 * the report), and the bidirectional controls (text that reads otherwise than it is).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what is named.
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const visible = (text: string) =>
  text.replace(HIDDEN, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });

/** A Markdown code block that no line of `text` can close (a fence longer than any run of backticks in it). */
function fenced(raw: string): string {
  const text = visible(raw);
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${fence}text\n${text}\n${fence}`;
}

const cell = (text: string) => visible(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

function markdown(input: ReportInput): string {
  const { run, outline, usage } = input;
  const lines = [
    `# Run ${visible(run.name)}${input.modelCall ? `: model call ${input.modelCall}` : ''}`,
    '',
    `${outline.events} events · ${outline.toolCalls} tool calls · ${outline.retained} retained values (${formatBytes(outline.keptOutBytes)} kept out) · started ${run.startedAt}${outline.source ? ` · imported from ${outline.source.format}` : ''}`,
    '',
    `Tokens: ${usage.tokenizer}. ${basisSentence(usage)}${usage.price ? ` Prices: ${usage.model}, list prices of ${usage.price.asOf}.` : ''}`,
    '',
    '| model call | tokens | cache read | cache write | output | USD | basis | largest parts |',
    '|---|---|---|---|---|---|---|---|',
    ...calls(input).map(
      (c) =>
        `| ${c.modelCall} | ${c.total} | ${c.cache.read} | ${c.cache.write} | ${c.output} | ${usd(c.usd)} | ${c.basis} | ${cell(largest(c.parts))}${c.breakReason && c.breakReason !== 'first' ? ` (cache broke at event #${c.breakAt ?? 0}: ${BREAK_WORDS[c.breakReason]})` : ''} |`,
    ),
    ...(input.modelCall
      ? []
      : [
          `| total | ${usage.totals.total} | ${usage.totals.cache.read} | ${usage.totals.cache.write} | ${usage.totals.output} | ${usd(usage.totals.usd)} | ${usage.totals.counted} provider | |`,
        ]),
    '',
    '## Events',
    '',
  ];
  shownEvents(input).forEach((event, i) => {
    const { title, body } = eventParts(event);
    if (!body && (event.type === 'model_call' || event.type === 'request_shape')) return;
    const shown = clip(body);
    lines.push(`### #${i} ${visible(title).replace(/\n/g, ' ')}`, '');
    if (shown.text) lines.push(fenced(shown.text), '');
    if (shown.cut) lines.push(`(cut: ${formatBytes(shown.bytes)}, ${shown.lines} lines in all)`, '');
  });
  return `${lines.join('\n').trimEnd()}\n`;
}

const htmlText = (text: string) =>
  visible(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

function html(input: ReportInput): string {
  const { run, outline, usage } = input;
  const rows = calls(input)
    .map(
      (c) =>
        `<tr><td>${c.modelCall}</td><td>${c.total}</td><td>${c.cache.read}</td><td>${c.cache.write}</td><td>${c.output}</td><td>${usd(c.usd)}</td><td>${c.basis}</td><td>${htmlText(largest(c.parts))}${c.breakReason && c.breakReason !== 'first' ? ` <em>(cache broke at event #${c.breakAt ?? 0}: ${BREAK_WORDS[c.breakReason]})</em>` : ''}</td></tr>`,
    )
    .join('\n');
  const events = shownEvents(input)
    .map((event, i) => {
      const { title, body } = eventParts(event);
      if (!body && (event.type === 'model_call' || event.type === 'request_shape')) return '';
      const shown = clip(body);
      return `<section class="event ${event.type}"><h3>#${i} ${htmlText(title)}</h3>${shown.text ? `<pre>${htmlText(shown.text)}</pre>` : ''}${shown.cut ? `<p class="cut">cut: ${htmlText(formatBytes(shown.bytes))}, ${shown.lines} lines in all</p>` : ''}</section>`;
    })
    .join('\n');
  const title = `Run ${run.name}${input.modelCall ? `: model call ${input.modelCall}` : ''}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${htmlText(title)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #1f1f1f; background: #fff; }
@media (prefers-color-scheme: dark) { body { color: #ddd; background: #1e1e1e; } th, td { border-color: #555; } pre { background: #2a2a2a; } }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: right; } td:last-child, th:last-child { text-align: left; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f4f4f4; padding: 6px; }
.event.tool_call_finished h3 { color: #b35900; } .event.compaction h3 { color: #b00020; } .cut { font-style: italic; }
</style>
</head>
<body>
<h1>${htmlText(title)}</h1>
<p>${outline.events} events · ${outline.toolCalls} tool calls · ${outline.retained} retained values (${htmlText(formatBytes(outline.keptOutBytes))} kept out) · started ${htmlText(run.startedAt)}${outline.source ? ` · imported from ${htmlText(outline.source.format)}` : ''}</p>
<p>Tokens: ${htmlText(usage.tokenizer)}. ${htmlText(basisSentence(usage))}${usage.price ? ` Prices: ${htmlText(usage.model ?? '')}, list prices of ${htmlText(usage.price.asOf)}.` : ''}</p>
<table>
<thead><tr><th>model call</th><th>tokens</th><th>cache read</th><th>cache write</th><th>output</th><th>USD</th><th>basis</th><th>largest parts</th></tr></thead>
<tbody>
${rows}
${input.modelCall ? '' : `<tr><th>total</th><td>${usage.totals.total}</td><td>${usage.totals.cache.read}</td><td>${usage.totals.cache.write}</td><td>${usage.totals.output}</td><td>${usd(usage.totals.usd)}</td><td>${usage.totals.counted} provider</td><td></td></tr>`}
</tbody>
</table>
<h2>Events</h2>
${events}
</body>
</html>
`;
}
