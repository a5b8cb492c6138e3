/**
 * The one checker of untrusted input: protocol params, webview messages, settings, events. A
 * value is parsed with its schema (zod, declared once beside its type) and refused with one
 * InvalidInput error whose message names each field that is wrong, what it should be, and, for
 * an unknown field, the likely one meant (`args` → `arguments`).
 */
import type * as z from 'zod';
import type { ZodMiniType } from 'zod/mini';
import { InvalidInput } from './invalidInput';

/** Names people (and agents) reach for instead of ours. */
const ALIASES: Readonly<Record<string, string>> = {
  args: 'arguments',
  is_error: 'isError',
  run_id: 'runId',
  value_id: 'valueId',
  call_id: 'callId',
  tool_calls: 'toolCalls',
  ignore_case: 'ignoreCase',
  stop_reason: 'stopReason',
};

/**
 * Parses `value` with `schema`, or throws an InvalidInput naming every problem under `where`. A
 * schema may be zod's or zod/mini's (the hooks that run before every command load only that).
 */
export function check<T>(schema: z.ZodType<T>, value: unknown, where?: string): T;
export function check<T>(schema: ZodMiniType<T>, value: unknown, where?: string): T;
export function check<T>(schema: z.ZodType<T> | ZodMiniType<T>, value: unknown, where = 'params'): T {
  const valid = schema.safeParse(value);
  if (valid.success) return valid.data;
  // Parsed again for the message: keeping each issue's input costs a third more on every valid value.
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 4).map((issue) => describe(issue, schema as z.ZodType, where));
  const more = parsed.error.issues.length > 4 ? `; and ${parsed.error.issues.length - 4} more` : '';
  throw new InvalidInput(`${problems.join('; ')}${more}`);
}

function pathOf(where: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : `${out}.${String(key)}`),
    where,
  );
}

function describe(issue: z.core.$ZodIssue, schema: z.ZodType, where: string): string {
  const at = pathOf(where, issue.path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys
        .map((key) => {
          const known = keysAt(schema, issue.path);
          const meant = ALIASES[key] && known.includes(ALIASES[key]) ? ALIASES[key] : closest(key, known);
          return `${pathOf(where, [...issue.path, key])} is not a known field${meant ? ` (did you mean ${meant}?)` : known.length ? ` (known: ${known.join(', ')})` : ''}`;
        })
        .join('; ');
    case 'invalid_type': {
      const input = (issue as { input?: unknown }).input;
      const expected =
        issue.expected === 'number' && (unwrap(schemaAt(schema, issue.path)) as { isInt?: boolean } | undefined)?.isInt
          ? 'int'
          : issue.expected;
      if (input === undefined)
        return expected === 'nonoptional' ? `${at} is required` : `${at} is required (${article(expected)})`;
      return `${at} must be ${article(expected)} (got ${kind(input)})`;
    }
    case 'invalid_value':
      return `${at} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
    case 'too_big': {
      if (issue.origin === 'number' || issue.origin === 'int')
        return `${at} must be ${range(schema, issue)} (got ${(issue as { input?: unknown }).input})`;
      const [least, most] = [
        issue.code === 'too_small' ? issue.minimum : undefined,
        issue.code === 'too_big' ? issue.maximum : undefined,
      ];
      if (issue.origin === 'string')
        return least !== undefined ? `${at} must not be empty` : `${at} must be at most ${most} characters`;
      if (issue.origin === 'array')
        return least !== undefined
          ? `${at} must have at least ${least} item(s)`
          : `${at} must have at most ${most} items`;
      return `${at}: ${issue.message}`;
    }
    case 'invalid_union': {
      const { note, options, errors } = issue as { note?: string; options?: unknown[]; errors?: z.core.$ZodIssue[][] };
      if (note === 'No matching discriminator' && options)
        return `${at} must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}`;
      // The form the input came nearest to: the one whose problems lie deepest.
      const depth = (list: z.core.$ZodIssue[]) => Math.max(0, ...list.map((i) => i.path.length));
      const nearest = [...(errors ?? [])].sort((x, y) => depth(y) - depth(x))[0];
      if (!nearest?.length || depth(nearest) === 0) return `${at} is not one of the forms it may take`;
      return nearest
        .map((inner) => describe({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue, schema, where))
        .join('; ');
    }
    default:
      return `${at}: ${issue.message}`;
  }
}

/** "a whole number from 1 to 400", from the number schema at the issue's path. */
function range(schema: z.ZodType, issue: z.core.$ZodIssue): string {
  const n = unwrap(schemaAt(schema, issue.path)) as
    | { minValue?: number | null; maxValue?: number | null; isInt?: boolean }
    | undefined;
  const what = n?.isInt ? 'a whole number' : 'a number';
  const [min, max] = [n?.minValue, n?.maxValue].map((v) =>
    typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < Number.MAX_SAFE_INTEGER ? v : undefined,
  );
  if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
  if (min !== undefined) return `${what} of at least ${min}`;
  return `${what} of at most ${max}`;
}

function article(expected: string): string {
  if (expected === 'int') return 'a whole number';
  if (expected === 'object' || expected === 'array') return `an ${expected}`;
  return `a ${expected}`;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `${value}`;
  if (typeof value === 'string')
    return `a string, ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): unknown {
  let at: unknown = schema;
  for (const key of path) at = step(at, key);
  return at;
}

/** The field names the schema allows at `path` (for suggestions). */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  return fieldsOf(schemaAt(schema, path));
}

function unwrap(schema: unknown): unknown {
  let s = schema as { def?: { type?: string; innerType?: unknown } } | undefined;
  while (s?.def && ['optional', 'nullable', 'default', 'readonly', 'catch', 'nonoptional'].includes(s.def.type ?? ''))
    s = s.def.innerType as typeof s;
  return s;
}

function step(schema: unknown, key: PropertyKey): unknown {
  const s = unwrap(schema) as
    | { def?: { type?: string; element?: unknown; options?: unknown[] }; shape?: Record<string, unknown> }
    | undefined;
  if (!s?.def) return undefined;
  if (s.def.type === 'array') return s.def.element;
  if (s.def.type === 'object') return s.shape?.[String(key)];
  if (s.def.type === 'union') return s.def.options?.map((o) => step(o, key)).find((o) => o !== undefined);
  return undefined;
}

function fieldsOf(schema: unknown): string[] {
  const s = unwrap(schema) as
    | { def?: { type?: string; options?: unknown[] }; shape?: Record<string, unknown> }
    | undefined;
  if (s?.def?.type === 'object') return Object.keys(s.shape ?? {});
  if (s?.def?.type === 'union') return [...new Set((s.def.options ?? []).flatMap(fieldsOf))];
  return [];
}

/** The known name nearest to `key` (by edit distance, case ignored), if near enough to be a slip. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const name of known) {
    const d = distance(key.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
