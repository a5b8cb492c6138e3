/**
 * The settings, declared once: their schema, bounds and defaults. The extension reads
 * `retained.*` into this shape and checks it here before sending it; the server checks it again
 * (any client may send settings); `package.json` spells the same defaults for the Settings UI,
 * and a test holds the two together. A peek answer must stay below the retention threshold, or
 * a peek could itself be retained.
 */

import * as z from 'zod';
import { check } from './check';
import { InvalidInput } from './invalidInput';
import type { Price } from './pricing';
import { compileQuery } from './query';
import { DEFAULT_THRESHOLD_BYTES } from './threshold';

export type LandmarkKind = 'error' | 'failure' | 'warning' | 'trace';
export const LANDMARK_KINDS: readonly LandmarkKind[] = ['error', 'failure', 'warning', 'trace'];

/** Older results and inputs as references on later requests (Retained Outputs' history policy). */
export interface HistoryPolicy {
  /** Rounds (an assistant message with tool calls and its results) at the end kept intact. */
  keepRounds: number;
  /** An older body of at most this many UTF-8 bytes stays inline. */
  inlineMaxBytes: number;
  /** An older tool input string (an argument) of at most this many UTF-8 bytes stays inline. */
  inputMaxBytes: number;
  /** Tools whose results always stay as they are. */
  exemptTools: string[];
}

/** When whole runs may be removed from the store (by `retained/cleanup`, or at start-up). */
export interface CleanupPolicy {
  /** The store's size past which the oldest runs go (0: no quota). */
  quotaBytes: number;
  /** Runs not written for this many days go (0: no age limit). */
  maxAgeDays: number;
  /** Clean up when the server starts. */
  onStartup: boolean;
}

/** The guard that withholds results from the model (seed 003). */
export interface GuardSettings {
  /** Withhold results that match the built-in secret patterns or `patterns`. */
  secrets: boolean;
  /** More regular expressions (RE2 sources) whose match withholds a result. */
  patterns: string[];
  /** Whether peek_value may read a withheld original. */
  peekOriginals: boolean;
}

export interface Settings {
  /** Results whose UTF-8 size exceeds this many bytes are retained. */
  thresholdBytes: number;
  /** Most lines one peek returns. */
  peekMaxLines: number;
  /** Most bytes one peek answer holds; must be below `thresholdBytes`. */
  peekMaxBytes: number;
  /** Lines of the value's head shown in a stub. */
  previewHeadLines: number;
  /** Lines of the value's tail shown in a stub. */
  previewTailLines: number;
  /** Regular expressions (RE2 sources) that replace the built-in landmark patterns, per kind. */
  landmarkPatterns: Partial<Record<LandmarkKind, string>>;
  /** The history policy a replay uses when it asks for one without saying which. */
  history: HistoryPolicy;
  cleanup: CleanupPolicy;
  guard: GuardSettings;
  /** Prices per model name prefix, over the built-in table (shared/pricing.ts), in USD per million tokens. */
  pricing: Record<string, Price>;
}

type Numeric = 'thresholdBytes' | 'peekMaxLines' | 'peekMaxBytes' | 'previewHeadLines' | 'previewTailLines';

/**
 * Bounds of the numeric settings. The threshold stops at 16 MiB: a result under it goes to the
 * model whole, in one transcript line.
 */
export const SETTING_BOUNDS: Readonly<Record<Numeric, { min: number; max: number }>> = Object.freeze({
  thresholdBytes: { min: 512, max: 16 << 20 },
  peekMaxLines: { min: 1, max: 400 },
  peekMaxBytes: { min: 256, max: 1 << 20 },
  previewHeadLines: { min: 0, max: 10 },
  previewTailLines: { min: 0, max: 10 },
});

export const HISTORY_BOUNDS = Object.freeze({
  keepRounds: { min: 0, max: 1000 },
  inlineMaxBytes: { min: 0, max: 1 << 20 },
  inputMaxBytes: { min: 0, max: 1 << 20 },
});

export const DEFAULT_HISTORY_POLICY: Readonly<HistoryPolicy> = Object.freeze({
  keepRounds: 1,
  inlineMaxBytes: 1024,
  inputMaxBytes: 1024,
  exemptTools: [],
});

export const CLEANUP_BOUNDS = Object.freeze({
  quotaBytes: { min: 0, max: 2 ** 50 },
  maxAgeDays: { min: 0, max: 36500 },
});

export const DEFAULT_CLEANUP: Readonly<CleanupPolicy> = Object.freeze({
  quotaBytes: 2 * 1024 ** 3,
  maxAgeDays: 30,
  onStartup: false,
});

export const DEFAULT_GUARD: Readonly<GuardSettings> = Object.freeze({
  secrets: false,
  patterns: [],
  peekOriginals: false,
});

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  thresholdBytes: DEFAULT_THRESHOLD_BYTES,
  peekMaxLines: 400,
  peekMaxBytes: 16384,
  previewHeadLines: 6,
  previewTailLines: 6,
  landmarkPatterns: {},
  pricing: {},
  history: DEFAULT_HISTORY_POLICY,
  cleanup: DEFAULT_CLEANUP,
  guard: DEFAULT_GUARD,
});

const bounded = (b: { min: number; max: number }) => z.number().int().min(b.min).max(b.max);

/** A history policy as a request may give it: every field optional, nothing else. */
export const HistoryPolicySchema = z.strictObject({
  keepRounds: bounded(HISTORY_BOUNDS.keepRounds).optional(),
  inlineMaxBytes: bounded(HISTORY_BOUNDS.inlineMaxBytes).optional(),
  inputMaxBytes: bounded(HISTORY_BOUNDS.inputMaxBytes).optional(),
  exemptTools: z.array(z.string().max(200)).max(1000).optional(),
});

export const CleanupSchema = z.strictObject({
  quotaBytes: bounded(CLEANUP_BOUNDS.quotaBytes).optional(),
  maxAgeDays: bounded(CLEANUP_BOUNDS.maxAgeDays).optional(),
  onStartup: z.boolean().optional(),
});

export const GuardSchema = z.strictObject({
  secrets: z.boolean().optional(),
  patterns: z.array(z.string().max(1000)).max(100).optional(),
  peekOriginals: z.boolean().optional(),
});

const LandmarkPatternsSchema = z.strictObject(
  Object.fromEntries(LANDMARK_KINDS.map((kind) => [kind, z.string().max(1000).optional()])) as Record<
    LandmarkKind,
    z.ZodOptional<z.ZodString>
  >,
);

const usdPerMillion = z.number().min(0).max(10_000);
/** Model name prefixes (`claude-sonnet-4`), at most 100, each with its prices (a 1-hour cache write's optional). */
const PricingSchema = z
  .record(
    z
      .string()
      .min(1)
      .max(100)
      .regex(/^[a-z0-9][a-z0-9._/-]*$/i, 'a model name prefix'),
    z.strictObject({
      input: usdPerMillion,
      output: usdPerMillion,
      cacheRead: usdPerMillion,
      cacheWrite: usdPerMillion,
      cacheWrite1h: usdPerMillion.optional(),
    }),
  )
  .refine((table) => Object.keys(table).length <= 100, 'at most 100 models');

/** Settings as a client sends them: any field may be left out for its default. */
export const SettingsSchema = z.strictObject({
  thresholdBytes: bounded(SETTING_BOUNDS.thresholdBytes).optional(),
  peekMaxLines: bounded(SETTING_BOUNDS.peekMaxLines).optional(),
  peekMaxBytes: bounded(SETTING_BOUNDS.peekMaxBytes).optional(),
  previewHeadLines: bounded(SETTING_BOUNDS.previewHeadLines).optional(),
  previewTailLines: bounded(SETTING_BOUNDS.previewTailLines).optional(),
  landmarkPatterns: LandmarkPatternsSchema.optional(),
  history: HistoryPolicySchema.optional(),
  cleanup: CleanupSchema.optional(),
  guard: GuardSchema.optional(),
  pricing: PricingSchema.optional(),
});
export type SettingsInput = z.infer<typeof SettingsSchema>;

/** A policy from a request filled from `defaults`; throws an InvalidInput naming the field. */
export function resolveHistoryPolicy(
  input: unknown,
  defaults: HistoryPolicy = DEFAULT_HISTORY_POLICY,
  where = 'policy',
): HistoryPolicy {
  const given = input === undefined || input === true ? {} : check(HistoryPolicySchema, input, where);
  return { ...defaults, ...given, exemptTools: [...(given.exemptTools ?? defaults.exemptTools)] };
}

/**
 * Settings with every default filled in, checked; throws an InvalidInput naming the field and
 * the rule it broke (an unknown field is refused, with the likely one meant).
 */
export function resolveSettings(input: unknown, where = 'settings'): Settings {
  const given = check(SettingsSchema, input ?? {}, where);
  const landmarkPatterns: Partial<Record<LandmarkKind, string>> = {};
  for (const kind of LANDMARK_KINDS) {
    const source = given.landmarkPatterns?.[kind];
    if (!source) continue;
    try {
      compileQuery(source, { regex: true });
    } catch (err) {
      throw new InvalidInput(
        `${where}.landmarkPatterns.${kind} is not a valid regular expression: ${(err as Error).message}`,
      );
    }
    landmarkPatterns[kind] = source;
  }
  given.guard?.patterns?.forEach((source, i) => {
    try {
      compileQuery(source, { regex: true });
    } catch (err) {
      throw new InvalidInput(
        `${where}.guard.patterns[${i}] is not a valid regular expression: ${(err as Error).message}`,
      );
    }
  });
  const { landmarkPatterns: _patterns, history, cleanup, guard, pricing, ...numbers } = given;
  const out: Settings = {
    ...DEFAULT_SETTINGS,
    ...numbers,
    landmarkPatterns,
    history: resolveHistoryPolicy(history, DEFAULT_HISTORY_POLICY, `${where}.history`),
    cleanup: { ...DEFAULT_CLEANUP, ...cleanup },
    guard: { ...DEFAULT_GUARD, ...guard, patterns: [...(guard?.patterns ?? [])] },
    pricing: Object.fromEntries(
      Object.entries(pricing ?? {}).map(([model, price]) => [model.toLowerCase(), { ...price }]),
    ),
  };
  if (out.peekMaxBytes >= out.thresholdBytes) {
    throw new InvalidInput(
      `${where}.peekMaxBytes (${out.peekMaxBytes}) must be below ${where}.thresholdBytes (${out.thresholdBytes}), or a peek answer could itself be retained`,
    );
  }
  return out;
}
