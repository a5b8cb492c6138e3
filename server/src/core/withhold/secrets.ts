/**
 * The built-in secret guard: what a tool result must not carry into a model's context. Each
 * pattern is a literal prefix and a bounded character class, so it runs in linear time on any
 * input; the user's own patterns (RE2, linear) are tested a line at a time, all along each line:
 * in windows of 64 Ki characters that overlap by half, so a match of up to 32 Ki characters is
 * found wherever it is on however long a line.
 */
import { compileQuery, type LineMatcher } from '../../../../shared/query';

const BUILT_IN: readonly { kind: string; pattern: string }[] = [
  { kind: 'a private key', pattern: '-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----' },
  { kind: 'an AWS access key', pattern: '\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b' },
  { kind: 'a GitHub token', pattern: '\\bgh[pousr]_[A-Za-z0-9]{36,255}\\b|\\bgithub_pat_[A-Za-z0-9_]{22,255}\\b' },
  { kind: 'a GitLab token', pattern: '\\bglpat-[A-Za-z0-9_-]{20,}' },
  { kind: 'a Slack token', pattern: '\\bxox[abposr]-[A-Za-z0-9-]{10,}' },
  { kind: 'a Google API key', pattern: '\\bAIza[0-9A-Za-z_-]{35}' },
  { kind: 'an Anthropic key', pattern: '\\bsk-ant-[A-Za-z0-9_-]{32,}' },
  {
    kind: 'an OpenAI key',
    pattern: '\\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20}T3BlbkFJ[A-Za-z0-9_-]{20,}|\\bsk-proj-[A-Za-z0-9_-]{40,}',
  },
  { kind: 'a Stripe key', pattern: '\\b[rs]k_live_[0-9a-zA-Z]{24,}' },
];

const COMBINED = new RegExp(BUILT_IN.map((p) => `(${p.pattern})`).join('|'));
/** A user pattern is tested on windows of a line this long, each starting half a window after the last. */
const WINDOW_CHARS = 64 << 10;
const STEP_CHARS = WINDOW_CHARS / 2;

export class SecretGuard {
  private readonly own: { kind: string; matcher: LineMatcher }[];

  constructor(patterns: readonly string[] = []) {
    this.own = patterns.map((source, i) => ({
      kind: `retained.guard.patterns[${i}]`,
      matcher: compileQuery(source, { regex: true }),
    }));
  }

  /** What kind of secret `text` holds (for the audit log, never the model), or undefined. */
  find(text: string): string | undefined {
    const match = COMBINED.exec(text);
    if (match) return BUILT_IN[match.slice(1).findIndex((group) => group !== undefined)]?.kind;
    if (this.own.length === 0) return undefined;
    for (let start = 0; start < text.length; ) {
      const nl = text.indexOf('\n', start);
      const end = nl === -1 ? text.length : nl;
      for (let at = start; ; at += STEP_CHARS) {
        const window = text.slice(at, Math.min(end, at + WINDOW_CHARS));
        for (const { kind, matcher } of this.own) if (matcher.test(window)) return kind;
        if (at + WINDOW_CHARS >= end) break;
      }
      start = end + 1;
    }
    return undefined;
  }
}

/** Text a stream is checked in: pieces overlapping by half a window, so no secret is split unseen. */
export class SecretScan {
  private tail = '';
  found: string | undefined;

  constructor(private readonly guard: SecretGuard) {}

  push(text: string): void {
    if (this.found) return;
    const piece = this.tail + text;
    this.found = this.guard.find(piece);
    const nl = piece.lastIndexOf('\n', piece.length - 1);
    // Keep the open last line (at most half a window of it) for the next piece.
    this.tail = piece.slice(Math.max(nl + 1, piece.length - STEP_CHARS));
  }
}
