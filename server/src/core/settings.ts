/**
 * Retention settings: defaults, bounds, and the one validator every front end uses. A peek
 * answer must stay below the retention threshold, or a peek could itself be retained.
 */

import { DEFAULT_HISTORY_POLICY, resolveHistoryPolicy, type HistoryPolicy } from './historyPolicy';
import { LANDMARK_KINDS, type LandmarkKind } from './landmarks';
import { compileQuery } from './query';

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
  /** Regular expressions (sources) that replace the built-in landmark patterns, per kind. */
  landmarkPatterns: Partial<Record<LandmarkKind, string>>;
  /** The history policy a replay uses when it asks for one without saying which. */
  history: HistoryPolicy;
}

type NumericSetting = 'thresholdBytes' | 'peekMaxLines' | 'peekMaxBytes' | 'previewHeadLines' | 'previewTailLines';

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  thresholdBytes: 20480,
  peekMaxLines: 400,
  peekMaxBytes: 16384,
  previewHeadLines: 6,
  previewTailLines: 6,
  landmarkPatterns: {},
  history: DEFAULT_HISTORY_POLICY,
});

interface Bound {
  min: number;
  max: number;
}

export const SETTING_BOUNDS: Readonly<Record<NumericSetting, Bound>> = Object.freeze({
  thresholdBytes: { min: 512, max: 1 << 30 },
  peekMaxLines: { min: 1, max: 400 },
  peekMaxBytes: { min: 256, max: 1 << 20 },
  previewHeadLines: { min: 0, max: 10 },
  previewTailLines: { min: 0, max: 10 },
});

function resolveLandmarkPatterns(input: unknown): Partial<Record<LandmarkKind, string>> {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new SettingsError('landmarkPatterns must be an object of regular expressions by kind');
  const out: Partial<Record<LandmarkKind, string>> = {};
  for (const [kind, source] of Object.entries(input as Record<string, unknown>)) {
    if (!LANDMARK_KINDS.includes(kind as LandmarkKind)) throw new SettingsError(`landmarkPatterns.${kind} is not a landmark kind (${LANDMARK_KINDS.join(', ')})`);
    if (source === '' || source === null || source === undefined) continue;
    if (typeof source !== 'string') throw new SettingsError(`landmarkPatterns.${kind} must be a regular expression`);
    try {
      compileQuery(source, { regex: true });
    } catch (err) {
      throw new SettingsError(`landmarkPatterns.${kind} is not a valid regular expression: ${(err as Error).message}`);
    }
    out[kind as LandmarkKind] = source;
  }
  return out;
}

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/**
 * Fills defaults and checks every field. Throws a SettingsError naming the field and the
 * rule it broke; unknown fields are ignored so newer clients can talk to older servers.
 */
export function resolveSettings(input: unknown): Settings {
  if (input !== undefined && input !== null && (typeof input !== 'object' || Array.isArray(input))) {
    throw new SettingsError('settings must be an object');
  }
  const given = (input ?? {}) as Record<string, unknown>;
  const out: Settings = { ...DEFAULT_SETTINGS, landmarkPatterns: resolveLandmarkPatterns(given.landmarkPatterns), history: DEFAULT_HISTORY_POLICY };
  try {
    out.history = resolveHistoryPolicy(given.history ?? undefined);
  } catch (err) {
    throw new SettingsError((err as Error).message.replace(/^policy/, 'history'));
  }
  for (const key of Object.keys(SETTING_BOUNDS) as NumericSetting[]) {
    const value = given[key];
    if (value === undefined || value === null) continue;
    const { min, max } = SETTING_BOUNDS[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new SettingsError(`${key} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`);
    }
    out[key] = value;
  }
  if (out.peekMaxBytes >= out.thresholdBytes) {
    throw new SettingsError(
      `peekMaxBytes (${out.peekMaxBytes}) must be below thresholdBytes (${out.thresholdBytes}), or a peek answer could itself be retained`,
    );
  }
  return out;
}
