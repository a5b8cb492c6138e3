/**
 * The inspector's React components in jsdom. Only VS Code's side is faked: `acquireVsCodeApi`
 * is an object whose postMessage answers the webview's requests from a real RetentionService
 * over a real store in a temp dir, the way the extension relays them to the language server.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { act, cleanup, fireEvent, render, waitFor } from '@testing-library/react';
import { createElement } from 'react';
import { RetentionService } from '../../server/src/core/service';
import { type HostToPage, type PageToHost, parsePageMessage, parseState } from '../../shared/messages';
import { App } from '../../webview/src/App';
import { Host, type VsCodeApi } from '../../webview/src/host';
import { removeTempDirs, tempDir } from '../helpers/tmp';

const big = (n: number) => `${Array.from({ length: n }, (_, i) => `line ${i + 1} ${'.'.repeat(40)}`).join('\n')}\n`;
const HOSTILE = [
  '<script>window.__pwned = 1</script>',
  '<img src=x onerror="window.__pwned = 2">',
  '<a href="javascript:window.__pwned = 3">click</a>',
  '<style>body { display: none }</style>',
  '\u001b[31mred\u001b[0m and a bell \u0007',
].join('\n');

async function recordRun(s: RetentionService, runId: string) {
  await s.retainer.append({ runId: runId, event: { type: 'run_started', tools: ['read', 'sh', 'peek_value'] } });
  await s.retainer.append({ runId: runId, event: { type: 'user', text: 'Why does the build fail?' } });
  await s.retainer.append({
    runId: runId,
    event: {
      type: 'assistant',
      text: 'Reading the log.',
      toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'build.log' } }],
    },
  });
  await s.retainer.retain({
    runId,
    callId: 'c1',
    tool: 'read',
    text: `${big(1500)}error: missing semicolon\n`,
    durationMs: 40,
  });
  await s.retainer.append({
    runId: runId,
    event: { type: 'assistant', toolCalls: [{ id: 'c2', name: 'sh', arguments: { cmd: 'cat notes.html' } }] },
  });
  await s.retainer.retain({ runId, callId: 'c2', tool: 'sh', text: HOSTILE });
  await s.retainer.append({ runId: runId, event: { type: 'assistant', text: 'Line 1501 is missing a semicolon.' } });
  await s.retainer.append({ runId: runId, event: { type: 'turn_ended', stopReason: 'end_turn' } });
}

/** Given a request, a promise its answer waits for (undefined: answered at once). */
type Hold = (request: Extract<PageToHost, { type: 'request' }>) => Promise<void> | undefined;

/** The fake VS Code API: answers like the extension would, from the real service. */
function fakeVsCode(service: RetentionService, runId: string, initialState?: unknown, hold?: Hold) {
  const posted: PageToHost[] = [];
  let state = initialState;
  const deliver = (message: HostToPage) => window.dispatchEvent(new window.MessageEvent('message', { data: message }));
  const api: VsCodeApi = {
    postMessage(data) {
      // Throws, failing the test, when the webview sends a message the extension refuses.
      const m = parsePageMessage(data);
      posted.push(m);
      if (m.type === 'ready') {
        // As the extension does: the saved state goes back only when it checks out.
        const saved = parseState(m.state);
        queueMicrotask(() => deliver({ type: 'init', runId, ...(saved?.runId === runId ? { state: saved } : {}) }));
      }
      if (m.type === 'request') {
        const wait = hold?.(m) ?? Promise.resolve();
        // As the language server does: each request is answered by the inspection method of its name.
        const answer = wait.then(() =>
          (service.inspection[m.method] as (params: unknown) => Promise<unknown>).call(service.inspection, {
            runId,
            ...m.params,
          }),
        );
        answer.then(
          (result) => deliver({ type: 'response', id: m.id, result }),
          (err: Error) => deliver({ type: 'error', id: m.id, message: err.message }),
        );
      }
    },
    getState: () => state,
    setState: (s) => {
      state = s;
    },
  };
  return { api, posted, deliver, state: () => state };
}

async function mount(
  initialState?: unknown,
  prepare: (service: RetentionService) => Promise<string> = async (s) => {
    await recordRun(s, 'run-1');
    return 'run-1';
  },
  hold?: Hold,
) {
  const service = new RetentionService(join(tempDir(), '.retained'));
  await service.init();
  const runId = await prepare(service);
  const fake = fakeVsCode(service, runId, initialState, hold);
  const view = render(createElement(App, { host: new Host(fake.api, window) }));
  await waitFor(
    () =>
      assert.ok(
        view.container.querySelector('.row .cell.full'),
        `rows rendered: ${view.container.querySelector('.timeline')?.outerHTML.slice(0, 1500)} posted ${JSON.stringify(fake.posted)}`,
      ),
    { timeout: 5000 },
  );
  return { service, fake, view, rows: () => [...view.container.querySelectorAll<HTMLElement>('.row')] };
}

const rowText = (row: HTMLElement | undefined, side: 'full' | 'model') =>
  row?.querySelector(`.cell.${side}`)?.textContent ?? '';

describe('inspector webview', () => {
  afterEach(cleanup);
  after(removeTempDirs);

  it('shows each event in full beside what the model got: the big result as a highlighted stub', async () => {
    const { rows, view } = await mount();
    const all = rows();
    assert.equal(all.length, 8);
    assert.match(rowText(all[1], 'full'), /Why does the build fail\?/);
    assert.match(rowText(all[1], 'model'), /Why does the build fail\?/);
    const result = all[3]!;
    assert.match(rowText(result, 'full'), /read.*c1.*1,501 lines.*40 ms/s);
    assert.match(rowText(result, 'full'), /line 1 \.{40}/);
    assert.match(rowText(result, 'full'), /Showing 167 of 1,501 lines/);
    assert.ok(result.querySelector('.cell.model.form-stub'), 'the stub is highlighted');
    assert.match(
      rowText(result, 'model'),
      /^.*stub.*saved \d+(\.\d)? KiB.*\[retained #c1\] read result: \d+ bytes, 1501 lines/s,
    );
    assert.match(rowText(all[0], 'model'), /not a message/);
    assert.match(view.container.querySelector('.header')!.textContent!, /8 events · 2 tool calls · 1 retained/);
    // Three model calls made; the fourth is the next, not counted as made.
    assert.match(view.container.querySelector('.header')!.textContent!, /The next model call.*3 made so far/);
    await waitFor(() => assert.match(view.container.querySelector('.header')!.textContent!, /All 3 model calls/));
    assert.match(view.container.querySelector('.columns-head')!.textContent!, /the next model call$/);
  });

  it('paints the rows before the figures: it says they are being counted, and they follow', async () => {
    // The figures' request (an inspect without rows) is held until released, as a long count would be.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { view, fake, rows } = await mount(undefined, undefined, (m) =>
      m.method === 'inspect' && m.params.limit === 0 ? held : undefined,
    );
    const header = () => view.container.querySelector('.header')!.textContent!;
    assert.equal(rows().length, 8, 'every row is on screen');
    assert.match(header(), /Counting the tokens of each model call/);
    assert.doesNotMatch(header(), /All 3 model calls/);
    assert.ok(view.container.querySelector('.figures-block[role="status"][aria-busy="true"]'));
    const inspects = () => fake.posted.filter((m) => m.type === 'request' && m.method === 'inspect');
    // The rows were asked for without waiting for figures; the figures after them, once.
    assert.equal(inspects()[0]?.type === 'request' && inspects()[0]!.params.figures, false);
    assert.deepEqual(inspects()[1]?.type === 'request' && inspects()[1]!.params, {
      policy: false,
      view: 'sent',
      limit: 0,
    });
    release();
    await waitFor(() => assert.match(header(), /All 3 model calls/));
    assert.doesNotMatch(header(), /Counting/);
    assert.equal(view.container.querySelector('.figures-block')!.getAttribute('aria-busy'), 'false');
    // Counted now: the next page asked brings its figures along, and no second count is asked for.
    const previous = view.container.querySelector('vscode-button[aria-label="Previous model call"]')!;
    await act(async () => fireEvent.click(previous));
    await waitFor(() => assert.match(view.container.querySelector('.columns-head')!.textContent!, /model call 3$/));
    assert.equal(inspects().filter((m) => m.type === 'request' && m.params.limit === 0).length, 1);
  });

  it('"Where the tokens go" says it is counting until its answer comes', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { view } = await mount(undefined, undefined, (m) => (m.method === 'usage' ? held : undefined));
    const details = view.container.querySelector<HTMLDetailsElement>('details.usage')!;
    await act(async () => {
      details.open = true;
      fireEvent(details, new Event('toggle'));
    });
    const status = details.querySelector('[role="status"][aria-busy="true"]');
    assert.match(status?.textContent ?? '', /Counting where each model call's tokens go/);
    release();
    await waitFor(() => assert.match(details.textContent!, /The next model call: [\d,.k]+ tokens/));
    assert.equal(details.querySelector('[role="status"]'), null);
  });

  it('"Where the tokens go": the chosen model call by part, its cache reads and writes, asked for only when opened', async () => {
    const { view, fake } = await mount();
    const details = view.container.querySelector<HTMLDetailsElement>('details.usage')!;
    assert.ok(details, 'the section is there');
    assert.ok(!fake.posted.some((m) => m.type === 'request' && m.method === 'usage'), 'nothing asked while closed');
    await act(async () => {
      details.open = true;
      fireEvent(details, new Event('toggle'));
    });
    await waitFor(() => assert.match(details.textContent!, /The next model call: [\d,.k]+ tokens/));
    const legend = [...details.querySelectorAll('.usage-legend li')].map((li) => li.textContent);
    assert.ok(
      legend.some((t) => /^stubs \d+ \(\d+ %\)$/.test(t!)),
      JSON.stringify(legend),
    );
    assert.ok(legend.some((t) => /^user text /.test(t!)));
    assert.match(
      details.textContent!,
      /Prompt cache \(simulated\): [\d,.k]+ read, [\d,.k]+ written\. All of the previous request/,
    );
    assert.match(details.textContent!, /Tokens only: no price/);
    assert.match(
      details.querySelector('.usage-saving')!.textContent!,
      /^The whole run, as sent: [\d.,k]+ input tokens; with every result in full: [\d.,k]+\. With Retained Outputs: \d+ % fewer tokens\.$/,
    );
    assert.equal(details.querySelectorAll('.usage-bar rect').length, legend.length, 'one bar segment per part listed');
  });

  it('the context across the run, with its compaction marked, and the calls whose cached prefix broke, each one click away', async () => {
    const file = join(__dirname, '../fixtures/claude-code/compact/project/aa61cde6-2162-4c6a-a26c-0183d3f3d823.jsonl');
    const { view } = await mount(undefined, async (s) => (await s.importer.import({ path: file })).runId);
    const details = view.container.querySelector<HTMLDetailsElement>('details.usage')!;
    await act(async () => {
      details.open = true;
      fireEvent(details, new Event('toggle'));
    });
    await waitFor(() => assert.ok(details.querySelector('.context-chart svg')));
    const chart = details.querySelector('.context-chart svg')!;
    assert.match(chart.getAttribute('aria-label')!, /Context size per model call, 4 calls: .*1 compaction/);
    assert.equal(chart.querySelectorAll('line.compaction').length, 1);
    assert.equal(chart.querySelectorAll('polyline.series').length, 2, 'an imported run: both views');
    assert.match(
      details.querySelector('figcaption')!.textContent!,
      /as the agent sent it \(solid\), with Retained Outputs \(faint\)/,
    );
    const broke = details.querySelector('.cache-breaks li')!;
    assert.match(broke.textContent!, /model call 3 at event #10: a compaction started a new history/);
    assert.match(
      details.querySelector('.compactions li')!.textContent!,
      /^Before model call 3, event #10 replaced 10 events \([\d.,k]+ tokens\) with a summary of [\d.,k]+ tokens; no retained value among them\.$/,
    );
    await act(async () => fireEvent.click(broke.querySelector('button')!));
    await waitFor(() => assert.match(details.querySelector('.usage-title')!.textContent!, /^Model call 3:/));
  });

  it('selects a model call: later events are shown as not sent yet, and the choice is saved', async () => {
    const { rows, view, fake } = await mount();
    const previous = view.container.querySelector('vscode-button[aria-label="Previous model call"]')!;
    await act(async () => fireEvent.click(previous));
    await waitFor(() => assert.match(view.container.querySelector('.columns-head')!.textContent!, /model call 3$/));
    await waitFor(() =>
      assert.match(rowText(rows()[6], 'model'), /not in this model call: first sent in the next model call/),
    );
    assert.match(rowText(rows()[5], 'model'), /notes\.html|<script>/, 'the hostile result was sent in model call 3');
    assert.equal((fake.state() as { modelCall?: number }).modelCall, 3);
    const asked = fake.posted.filter((m) => m.type === 'request' && m.method === 'inspect').at(-1);
    assert.deepEqual(asked?.type === 'request' && asked.params, {
      modelCall: 3,
      policy: false,
      view: 'sent',
      from: 0,
      limit: 100,
      figures: false,
    });

    // The "model call k" link on an assistant row shows the history that produced it.
    const link = [...rows()[2]!.querySelectorAll('.model-call-link')][0]!;
    assert.equal(link.textContent, 'model call 1');
    await act(async () => fireEvent.click(link));
    await waitFor(() => assert.match(rowText(rows()[3], 'model'), /first sent in model call 2/));
  });

  it('a response\'s "model call k" selects that call and marks where its history ends', async () => {
    const { view } = await mount();
    const links = [...view.container.querySelectorAll<HTMLElement>('.model-call-link')];
    const link = links.at(-1)!;
    const k = Number(/model call (\d+)/.exec(link.textContent ?? '')?.[1]);
    assert.ok(k >= 1, link.textContent ?? '');
    const response = Number(link.closest('.row')!.getAttribute('data-index'));
    await act(async () => fireEvent.click(link));
    await waitFor(() =>
      assert.match(view.container.querySelector('.columns-head')!.textContent!, new RegExp(`model call ${k}$`)),
    );
    const end = view.container.querySelector<HTMLElement>('.row.history-end');
    assert.ok(end, 'a row marks the end of the history');
    assert.equal(end.getAttribute('data-history-end'), `model call ${k} was sent everything above this line`);
    assert.equal(
      Number(end.getAttribute('data-index')),
      response - 1,
      'the last event before the response it produced',
    );
  });

  it('an imported session: as the agent sent it, or with Retained Outputs, labelled plainly', async () => {
    const session = join(__dirname, '../fixtures/claude-code/parallel-and-big/project');
    const file = join(session, readdirSync(session).find((f) => f.endsWith('.jsonl'))!);
    const { rows, view, fake } = await mount(undefined, async (s) => (await s.importer.import({ path: file })).runId);
    const head = () => view.container.querySelector('.columns-head')!.textContent!;
    assert.match(head(), /As Claude Code sent it · the next model call/);
    assert.match(
      view.container.querySelector('.header')!.textContent!,
      /exactly as Claude Code 2\.1\.332 sent it, from the request records its session file keeps/,
    );
    assert.equal(
      view.container.querySelector('vscode-checkbox.policy'),
      null,
      'the history policy is ours: not offered for what the agent sent',
    );
    const big = () =>
      rows().find((r) => /toolu_bigD/.test(rowText(r, 'full')) && r.querySelector('.cell.full.kind-tool_result'))!;
    await waitFor(() => assert.ok(big()));
    assert.match(rowText(big(), 'model'), /agent's cut.*<persisted-output>/s);
    assert.match(rowText(big(), 'full'), /The agent sent the model 2\.\d KiB of it/);

    const retained = [...view.container.querySelectorAll('.view-row vscode-button')].find((b) =>
      /With Retained Outputs/.test(b.textContent ?? ''),
    )!;
    // Two toggle buttons, each saying whether it is pressed, the other one too (axe held a radio without aria-checked).
    const checked = () =>
      [...view.container.querySelectorAll('.view-choice vscode-button')].map((b) => [
        b.getAttribute('role'),
        b.getAttribute('aria-pressed'),
      ]);
    assert.deepEqual(checked(), [
      ['button', 'true'],
      ['button', 'false'],
    ]);
    await act(async () => fireEvent.click(retained));
    await waitFor(() => assert.match(head(), /With Retained Outputs \(simulated\) · the next model call/));
    assert.deepEqual(checked(), [
      ['button', 'false'],
      ['button', 'true'],
    ]);
    await waitFor(() =>
      assert.match(
        rowText(big(), 'model'),
        /stub.*\[retained #toolu_bigD\] Bash result: 108928 bytes.*Landmarks: error at line 10001/s,
      ),
    );
    assert.equal((fake.state() as { view?: string }).view, 'retained');
    assert.ok(view.container.querySelector('vscode-checkbox.policy'), 'the policy applies to the simulation');
  });

  it('an imported run shows both figures, on one baseline, in either view', async () => {
    const session = join(__dirname, '../fixtures/claude-code/parallel-and-big/project');
    const file = join(session, readdirSync(session).find((f) => f.endsWith('.jsonl'))!);
    const { view } = await mount(undefined, async (s) => (await s.importer.import({ path: file })).runId);
    const totals = () => {
      const row = [...view.container.querySelectorAll('.figures')].find((f) =>
        /^All \d+ model calls/.test(f.textContent ?? ''),
      )!;
      return {
        theirs: row.querySelector('.full')!.textContent!,
        ours: row.querySelector('.sent')!.textContent!,
        saving: row.querySelector('.saving')!.textContent!,
      };
    };
    await waitFor(() => assert.ok(totals()));
    const asSent = totals();
    assert.match(asSent.theirs, /^as Claude Code sent it [\d.]+k? tokens/);
    assert.match(asSent.ours, /^with Retained Outputs [\d.]+k? tokens/);
    assert.notEqual(
      asSent.theirs.replace(/^as Claude Code sent it /, ''),
      asSent.ours.replace(/^with Retained Outputs /, ''),
    );
    assert.match(asSent.saving, /^−\d/, 'Retained Outputs sends less than Claude Code did on this session');
    const retained = [...view.container.querySelectorAll('.view-row vscode-button')].find((b) =>
      /With Retained Outputs/.test(b.textContent ?? ''),
    )!;
    await act(async () => fireEvent.click(retained));
    await waitFor(() =>
      assert.match(view.container.querySelector('.columns-head')!.textContent!, /With Retained Outputs \(simulated\)/),
    );
    await waitFor(() => assert.deepEqual(totals(), asSent, 'the same two numbers in the other view'));
  });

  it('the keyboard alone: one tab stop per row, arrows between rows, Enter into a row, Escape out', async () => {
    const { rows, view } = await mount();
    const grid = view.container.querySelector('[role="grid"]')!;
    assert.deepEqual(
      [...grid.querySelectorAll('[role="columnheader"]')].map((h) => h.textContent),
      ['Full transcript', "Model's view · the next model call"],
    );
    const stops = () => rows().filter((r) => r.tabIndex === 0);
    assert.equal(stops().length, 1, 'one row takes Tab');
    const tabbableInside = (row: HTMLElement) =>
      [...row.querySelectorAll<HTMLElement>('button, summary')].filter((b) => b.tabIndex >= 0);
    assert.deepEqual(rows().flatMap(tabbableInside), [], "no row's links take Tab until it is entered");
    assert.match(rows()[3]!.getAttribute('aria-label')!, /^Event 3: Tool result read; the model got a stub$/);

    let row = stops()[0]!;
    act(() => row.focus());
    for (let i = 0; i < 3; i++) {
      await act(async () => fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' }));
    }
    await waitFor(() => assert.equal(document.activeElement?.getAttribute('data-index'), '3'));
    row = document.activeElement as HTMLElement;
    assert.equal(row.tabIndex, 0, 'the focused row is the tab stop');
    await act(async () => fireEvent.keyDown(row, { key: 'Enter' }));
    assert.ok(row.contains(document.activeElement) && document.activeElement !== row, 'Enter focuses its first link');
    assert.ok(tabbableInside(row).length > 3, "the entered row's links take Tab");
    await act(async () => fireEvent.keyDown(document.activeElement!, { key: 'Escape' }));
    assert.equal(document.activeElement, row, 'Escape goes back to the row');
    await waitFor(() => assert.deepEqual(tabbableInside(row), []));
    // Right into the model's cell, Enter into its links: the stub's id first.
    await act(async () => fireEvent.keyDown(row, { key: 'ArrowRight' }));
    await act(async () => fireEvent.keyDown(document.activeElement!, { key: 'ArrowRight' }));
    assert.equal(document.activeElement, row.querySelector('.cell.model'));
    await act(async () => fireEvent.keyDown(document.activeElement!, { key: 'Enter' }));
    assert.equal(document.activeElement?.textContent, '[retained #c1]');
    await act(async () => fireEvent.keyDown(document.activeElement!, { key: 'Escape' }));
    assert.equal(document.activeElement, row.querySelector('.cell.model'), 'back to the cell it was in');
    await act(async () => fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' }));
    await waitFor(() =>
      assert.equal(document.activeElement, rows()[4]!.querySelector('.cell.model'), 'down keeps the column'),
    );
    await act(async () => fireEvent.keyDown(document.activeElement!, { key: 'ArrowLeft' }));
    await act(async () => fireEvent.keyDown(document.activeElement!, { key: 'ArrowLeft' }));
    row = rows()[4]!;
    assert.equal(document.activeElement, row);
    await act(async () => fireEvent.keyDown(row, { key: 'End' }));
    await waitFor(() => assert.equal(document.activeElement?.getAttribute('data-index'), '7'));
    await act(async () => fireEvent.keyDown(document.activeElement!, { key: 'Home' }));
    await waitFor(() => assert.equal(document.activeElement?.getAttribute('data-index'), '0'));
  });

  it('"first sent in model call k" is a link to that model call, keeping the row in view', async () => {
    const { rows, view } = await mount({ runId: 'run-1', policy: false, modelCall: 1 });
    await waitFor(() => assert.match(view.container.querySelector('.columns-head')!.textContent!, /model call 1$/));
    const link = rows()[3]!.querySelector<HTMLButtonElement>('.first-sent-link')!;
    assert.equal(link.textContent, 'model call 2');
    await act(async () => fireEvent.click(link));
    await waitFor(() => assert.match(view.container.querySelector('.columns-head')!.textContent!, /model call 2$/));
    await waitFor(() => assert.match(rowText(rows()[3], 'model'), /\[retained #c1\]/));
  });

  it('switches the history policy on: older results become references', async () => {
    const { rows, view, fake, service } = await mount();
    // Two more rounds: a 5 KB result (verbatim: under the threshold), then one more call.
    await service.retainer.append({
      runId: 'run-1',
      event: { type: 'assistant', toolCalls: [{ id: 'c3', name: 'read', arguments: { path: 'notes.md' } }] },
    });
    await service.retainer.retain({ runId: 'run-1', callId: 'c3', tool: 'read', text: 'note\n'.repeat(1000) });
    await service.retainer.append({
      runId: 'run-1',
      event: { type: 'assistant', toolCalls: [{ id: 'c4', name: 'read', arguments: { path: 'x' } }] },
    });
    await service.retainer.retain({ runId: 'run-1', callId: 'c4', tool: 'read', text: 'x' });
    await act(async () => fake.deliver({ type: 'changed' }));
    await waitFor(() => assert.equal(rows().length, 12));
    assert.equal(rows()[9]!.querySelector('.cell.model')!.className, 'cell model form-verbatim');

    const checkbox = view.container.querySelector<HTMLElement>('vscode-checkbox.policy')!;
    // What vscode-checkbox does on a click (jsdom cannot run its click handling; the e2e test clicks for real).
    await act(async () => {
      (checkbox as HTMLElement & { checked: boolean }).checked = true;
      checkbox.dispatchEvent(new window.Event('change', { bubbles: true }));
    });
    await waitFor(() => assert.ok(rows()[9]!.querySelector('.cell.model.form-reference')), { timeout: 10_000 });
    assert.match(
      rowText(rows()[9], 'model'),
      /\[retained #c3\] read result: 5000 bytes, 1000 lines, an earlier result/,
    );
    assert.equal(
      rows()[11]!.querySelector('.cell.model')!.className,
      'cell model form-verbatim',
      'the newest round stays',
    );
    const asked = fake.posted.filter((m) => m.type === 'request' && m.method === 'inspect').at(-1);
    assert.equal(asked?.type === 'request' && asked.method === 'inspect' && asked.params.policy, true);
    assert.equal((fake.state() as { policy?: boolean }).policy, true);
  });

  it('restores the saved model call and search after a reload', async () => {
    const { rows, view } = await mount({ runId: 'run-1', policy: false, modelCall: 2, query: 'semicolon' });
    await waitFor(() => assert.match(view.container.querySelector('.search-count')!.textContent!, /^1 \/ 2$/));
    await waitFor(() => assert.match(view.container.querySelector('.columns-head')!.textContent!, /model call 2$/));
    assert.match(rowText(rows()[3], 'model'), /\[retained #c1\]/, 'model call 2 had the big result');
    assert.match(rowText(rows()[5], 'model'), /first sent in model call 3/);
  });

  it('opens the value from a stub: its id, a preview line and a landmark', async () => {
    const { rows, fake } = await mount();
    const links = [...rows()[3]!.querySelectorAll<HTMLButtonElement>('.cell.model .value-link')];
    const byText = (text: string) => links.find((a) => a.textContent === text)!;
    await act(async () => fireEvent.click(byText('[retained #c1]')));
    await act(async () => fireEvent.click(byText('2')));
    await act(async () => fireEvent.click(byText('1501')));
    await act(async () => fireEvent.click(byText('{"id":"c1","start":1,"end":400}')));
    const opens = fake.posted.filter((m) => m.type === 'openValue');
    assert.deepEqual(opens, [
      { type: 'openValue', valueId: 'c1' },
      { type: 'openValue', valueId: 'c1', line: 2 },
      { type: 'openValue', valueId: 'c1', line: 1501 },
      { type: 'openValue', valueId: 'c1', line: 1, endLine: 400 },
    ]);
    // The cut full result links to its original too.
    const open = [...rows()[3]!.querySelectorAll<HTMLButtonElement>('.cell.full .cut-note .link')][0]!;
    await act(async () => fireEvent.click(open));
    assert.deepEqual(fake.posted.at(-1), { type: 'openValue', valueId: 'c1' });
  });

  it("shows an assistant's readable thinking on demand, and starts its text at the first word", async () => {
    const { rows } = await mount(undefined, async (s) => {
      await s.retainer.append({ runId: 'think', event: { type: 'user', text: 'Why?' } });
      await s.retainer.append({
        runId: 'think',
        event: {
          type: 'assistant',
          text: '\n\n  Because.',
          thinking: [{ text: 'The user asks why; the log says so.', signature: 'sig' }],
        },
      });
      return 'think';
    });
    const assistant = rows()[1]!;
    const details = assistant.querySelector('.cell.full details.thinking');
    assert.ok(details, 'a Thinking disclosure');
    assert.match(details.textContent ?? '', /Thinking \(1 block\).*The user asks why; the log says so\./s);
    const bodies = [...assistant.querySelectorAll('.cell.full pre.body')].map((b) => b.textContent);
    assert.equal(bodies.at(-1), '  Because.', 'the text, its leading blank lines dropped');
    assert.doesNotMatch(rowText(assistant, 'full'), /\d thinking/, 'no bare count badge');
  });

  it('opens a cut body that is not a value from the transcript', async () => {
    const { rows, service, fake } = await mount();
    await service.retainer.append({
      runId: 'run-1',
      event: { type: 'user', text: Array.from({ length: 300 }, (_, i) => `pasted line ${i + 1}`).join('\n') },
    });
    await act(async () => fake.deliver({ type: 'changed' }));
    await waitFor(() => assert.equal(rows().length, 9));
    const open = [...rows()[8]!.querySelectorAll<HTMLButtonElement>('.cell.full .cut-note .link')].find(
      (a) => a.textContent === 'Open it all in an editor',
    )!;
    await act(async () => fireEvent.click(open));
    assert.deepEqual(fake.posted.at(-1), { type: 'openEvent', index: 8 });
  });

  it('a withheld result: the notice the model got in both columns, a badge, and a way to open the original', async () => {
    const { rows, fake } = await mount(undefined, async (s) => {
      await s.retainer.append({
        runId: 'guarded',
        event: { type: 'assistant', toolCalls: [{ id: 'c1', name: 'deploy', arguments: {} }] },
      });
      await s.withholder.withhold({
        runId: 'guarded',
        results: [{ callId: 'c1', tool: 'deploy', text: 'the receipt', reason: 'a policy' }],
      });
      return 'guarded';
    });
    const row = rows()[1]!;
    assert.match(rowText(row, 'full'), /withheld.*\[withheld\] This tool result was withheld/s);
    assert.match(rowText(row, 'model'), /\[withheld\] This tool result was withheld/);
    assert.doesNotMatch(rowText(row, 'full') + rowText(row, 'model'), /the receipt|a policy/);
    const open = row.querySelector<HTMLElement>('.open-original');
    assert.ok(open, 'a link to the original');
    fireEvent.click(open);
    assert.deepEqual(fake.posted.at(-1), { type: 'openEvent', index: 1 });
  });

  it('renders hostile tool output as text: no elements made, controls visible', async () => {
    const { rows, view } = await mount();
    const row = rows()[5]!;
    for (const selector of ['script', 'img', 'style', 'a[href^="javascript"]']) {
      assert.equal(view.container.querySelector(`.timeline ${selector}`), null, `no ${selector} from tool output`);
    }
    assert.match(rowText(row, 'full'), /<script>window\.__pwned = 1<\/script>/);
    assert.match(rowText(row, 'full'), /␛\[31mred␛\[0m and a bell ␇/);
    assert.equal((window as unknown as { __pwned?: number }).__pwned, undefined);
  });

  it('follows the run: a changed run shows its new events without a reload', async () => {
    const { rows, service, fake } = await mount();
    await service.retainer.append({ runId: 'run-1', event: { type: 'user', text: 'And the tests?' } });
    await act(async () => fake.deliver({ type: 'changed' }));
    await waitFor(() => assert.equal(rows().length, 9));
    assert.match(rowText(rows()[8], 'full'), /And the tests\?/);
    assert.match(rowText(rows()[8], 'model'), /And the tests\?/);
  });

  it('searches the whole transcript, marks the matches, steps through them, and follows the run', async () => {
    const { view, fake, service } = await mount();
    const field = view.container.querySelector('vscode-textfield.search-input')! as HTMLElement & { value: string };
    field.value = 'semicolon';
    await act(async () => fireEvent.input(field));
    await act(async () => fireEvent.keyDown(field, { key: 'Enter' }));
    await waitFor(() => assert.match(view.container.querySelector('.search-count')!.textContent!, /^1 \/ 2$/));
    assert.deepEqual(
      fake.posted
        .filter((m) => m.type === 'request' && m.method === 'search')
        .map((m) => m.type === 'request' && m.params),
      [{ query: 'semicolon', ignoreCase: true, regex: false }],
    );
    assert.match(view.container.querySelector('.hit-where')!.textContent!, /event #3, result line 1,501/);
    await act(async () => fireEvent.click(view.container.querySelector('.hit-where .link')!));
    assert.deepEqual(fake.posted.at(-1), { type: 'openValue', valueId: 'c1', line: 1501 });
    assert.ok([...view.container.querySelectorAll('mark')].some((m) => m.textContent === 'semicolon'));
    await act(async () => fireEvent.keyDown(field, { key: 'Enter' }));
    await waitFor(() => assert.match(view.container.querySelector('.search-count')!.textContent!, /^2 \/ 2$/));
    assert.ok(view.container.querySelector('.row.current[data-index="6"]'));
    // The run grows: the search runs again and stays on its hit.
    await service.retainer.append({ runId: 'run-1', event: { type: 'user', text: 'Fix the semicolon, please.' } });
    await act(async () => fake.deliver({ type: 'changed' }));
    await waitFor(() => assert.match(view.container.querySelector('.search-count')!.textContent!, /^2 \/ 3$/));
  });
});

describe('inspector messages', () => {
  it('accepts what the webview sends and names what is wrong with anything else', () => {
    assert.deepEqual(
      parsePageMessage({ type: 'request', id: 1, method: 'inspect', params: { from: 100, limit: 100 } }),
      {
        type: 'request',
        id: 1,
        method: 'inspect',
        // The schema's default filled in: the view an inspect shows when none is asked.
        params: { from: 100, limit: 100, view: 'sent' },
      },
    );
    const refused = (message: unknown, expected: RegExp) => assert.throws(() => parsePageMessage(message), expected);
    refused(null, /message must be an object \(got null\)/);
    refused({ type: 'openValue', valueId: '' }, /message\.valueId must not be empty/);
    refused(
      { type: 'openValue', valueId: 'x', line: 0 },
      /message\.line must be a whole number of at least 1 \(got 0\)/,
    );
    refused(
      { type: 'request', id: 2, method: 'inspect', params: { from: -1 } },
      /message\.params\.from must be a whole number of at least 0/,
    );
    refused(
      { type: 'request', id: 3, method: 'search', params: { query: '' } },
      /message\.params\.query must not be empty/,
    );
    refused(
      { type: 'request', id: 4, method: 'delete', params: {} },
      /message\.method must be one of "inspect", "search"/,
    );
    refused(
      { type: 'eval', code: '1' },
      /message\.type must be one of "ready", "request", "openValue", "openEvent", "rendered"/,
    );
    refused(
      { type: 'openValue', valueId: 'x', line: 5, endLine: 4 },
      /endLine needs line, and must not come before it/,
    );
    refused({ type: 'openValue', valueId: 'x', endLine: 4 }, /endLine needs line/);
    refused({ type: 'ready', extra: true }, /message\.extra is not a known field/);
    assert.deepEqual(parsePageMessage({ type: 'openEvent', index: 3, callId: 'c1' }), {
      type: 'openEvent',
      index: 3,
      callId: 'c1',
    });
    refused({ type: 'openEvent', index: -1 }, /message\.index must be a whole number of at least 0/);
  });
});
