/**
 * Results a guard withholds from the model (seed 003). A batch (the results of one model
 * response) gets 48 random bits and one deadline, taken when it is queued. Its originals are
 * written one after another to `withheld/<date>-withheld-<batch>-<index>-<callId>.txt` (the
 * batch and the index ahead of the id, the whole name through the one sanitizer: two batches
 * never share a file) with the time left; a write still running at the deadline is reported
 * unfinished and left to finish, and the batch's other results answer at once, their writes
 * going on after the answer (an original is never lost, and never copied into the audit log; a
 * streamed output, already in the store, is linked into place at once). The model gets
 * the notice and where the original is; the transcript records the notice as the result; every
 * outcome goes to the audit log, the reason only there.
 */
import { randomBytes } from 'node:crypto';
import { check } from '../../../../shared/check';
import type { TranscriptEvent } from '../../../../shared/events';
import { sanitizeId } from '../../../../shared/ids';
import { type WithheldOutcome, WithholdParams, type WithholdResult } from '../../../../shared/protocol';
import type { Context } from '../context';
import { VALUE_EXT, WITHHELD_DIR } from '../store/layout';
import type { AuditEntry } from '../store/runStore';
import { sha256Hex, utf8Bytes } from '../text/bytes';
import { withheldNotice } from './notice';
import { SecretGuard } from './secrets';

/** One deadline per batch, from when it is queued. */
export const BATCH_DEADLINE_MS = 30_000;
/** A withheld original's name: what peek_value knows it by, when it may read it. */
export const WITHHELD_NAME = /^\d{4}-\d{2}-\d{2}-withheld-[0-9a-f]{12}-\d+-/;

/** A result to withhold: its text, or a file already holding it (a streamed output). */
export interface Withheld {
  callId: string;
  tool: string;
  isError?: boolean;
  arguments?: unknown;
  reason?: string;
  /** The text, or a staged file already holding it, with its size and hash (a streamed output). */
  original: { text: string } | { file: string; bytes: number; sha256: string };
}

export interface WithholderOptions {
  /** Tests only: awaited before an original is written, to hold the write past its deadline. */
  beforeWrite?: (path: string) => Promise<void>;
  /** The deadline of a batch a retain makes (default 30 s); `retained/withhold` names its own. */
  deadlineMs?: number;
}

export class Withholder {
  private guardFor: { key: string; guard: SecretGuard } | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly options: WithholderOptions = {},
  ) {}

  /** The secret guard when `retained.guard.secrets` is on. */
  guard(): SecretGuard | undefined {
    const { secrets, patterns } = this.ctx.settings().guard;
    if (!secrets) return undefined;
    const key = JSON.stringify(patterns);
    if (this.guardFor?.key !== key) this.guardFor = { key, guard: new SecretGuard(patterns) };
    return this.guardFor.guard;
  }

  /** The deadline of a batch queued now. */
  deadline(): number {
    return Date.now() + (this.options.deadlineMs ?? BATCH_DEADLINE_MS);
  }

  /** `retained/withhold`: one batch from the agent's guard. */
  async withhold(input: WithholdParams): Promise<WithholdResult> {
    const params = check(WithholdParams, input);
    const deadline = Date.now() + (params.deadlineMs ?? BATCH_DEADLINE_MS);
    const runId = await this.ctx.runs.writable(params.runId);
    return this.ctx.writing(runId, () =>
      this.batch(
        runId,
        params.results.map(({ text, ...call }) => ({ ...call, original: { text } })),
        deadline,
      ),
    );
  }

  /** Withholds a batch of a run already being written (the caller holds its write). */
  async batch(runId: string, results: readonly Withheld[], deadline: number): Promise<WithholdResult> {
    let until = deadline;
    const batch = randomBytes(6).toString('hex');
    const date = new Date().toISOString().slice(0, 10);
    const out: WithholdResult['results'] = [];
    for (const [index, result] of results.entries()) {
      const base = sanitizeId(`${date}-withheld-${batch}-${index}-${result.callId}`);
      const name = `${base}${VALUE_EXT}`;
      const file = `${WITHHELD_DIR}/${name}`;
      // Where a person finds it: the file in a folder store, the row's name in a team store.
      const { store } = this.ctx;
      const path = store.withheldPath?.(base) ?? `${file} in ${store.where}`;
      const line = { runId, callId: result.callId, batch, index };
      const sized = sizeOf(result.original);
      await this.audit({ event: 'withheld', ...line, ...sized, ...(result.reason ? { reason: result.reason } : {}) });
      // A batch whose time is spent writes on after the answer: the original still goes to its
      // file (never to the audit log, which holds reasons, not outputs).
      const outcome: WithheldOutcome = await this.write(name, path, result.original, until, { ...line, file }).then(
        async (written) => {
          if (written === 'written') await this.audit({ event: 'written', ...line, file });
          else await this.audit({ event: 'unfinished', ...line, file });
          return written;
        },
        async (err: Error) => {
          await this.audit({ event: 'failed', ...line, error: err.message.slice(0, 200) });
          return 'failed' as const;
        },
      );
      if (outcome === 'unfinished') until = 0; // the rest of the batch answers at once
      const hasFile = outcome === 'written' || outcome === 'unfinished';
      const content = withheldNotice({
        outcome,
        ...(hasFile ? { file, path } : {}),
        audit: this.ctx.store.auditAt,
        ...(hasFile && this.ctx.settings().guard.peekOriginals ? { peekId: name.slice(0, -4) } : {}),
      });
      const event: TranscriptEvent = {
        type: 'tool_call_finished',
        callId: result.callId,
        tool: result.tool,
        result: content,
        ...(result.isError ? { isError: true } : {}),
        ...(result.arguments !== undefined ? { arguments: result.arguments } : {}),
        withheld: { outcome, ...(hasFile ? { file } : {}) },
      };
      await this.ctx.store.appendEvent(runId, event).catch(() => undefined);
      out.push({ callId: result.callId, content, outcome, ...(hasFile ? { file } : {}) });
    }
    return { batch, results: out };
  }

  /**
   * Writes an original, racing the batch's deadline: 'written', or 'unfinished' when the
   * deadline came first (the write goes on, and the audit log records how it ends); throws when
   * the write failed, leaving no partial file.
   */
  private write(
    name: string,
    path: string,
    original: Withheld['original'],
    deadline: number,
    line: { runId: string; callId: string; batch: string; index: number; file: string },
  ): Promise<'written' | 'unfinished'> {
    // A streamed original is linked, not written: at once, so it never races the deadline.
    if (!('text' in original)) return this.keep(name, path, line.runId, original).then(() => 'written' as const);
    const writing = this.keep(name, path, line.runId, original);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'unfinished'>((resolve) => {
      timer = setTimeout(() => resolve('unfinished'), Math.max(0, deadline - Date.now()));
    });
    return Promise.race([writing.then(() => 'written' as const), late]).then((outcome) => {
      clearTimeout(timer);
      if (outcome === 'unfinished')
        writing.then(
          () => this.audit({ event: 'settled', ...line, outcome: 'written' }),
          (err: Error) =>
            this.audit({ event: 'settled', ...line, outcome: 'failed', error: err.message.slice(0, 200) }),
        );
      return outcome;
    });
  }

  private async keep(name: string, path: string, runId: string, original: Withheld['original']): Promise<void> {
    await this.options.beforeWrite?.(path);
    await this.ctx.store.keepWithheld(name.slice(0, -VALUE_EXT.length), runId, original);
  }

  /** Appends an audit line; false when the store refused it. */
  private audit(record: AuditEntry): Promise<boolean> {
    return this.ctx.store.audit(record).then(
      () => true,
      () => false,
    );
  }
}

function sizeOf(original: Withheld['original']): { bytes: number; sha256: string } {
  if (!('text' in original)) return { bytes: original.bytes, sha256: original.sha256 };
  return { bytes: utf8Bytes(original.text), sha256: sha256Hex(original.text) };
}
