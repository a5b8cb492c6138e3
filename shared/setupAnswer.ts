/**
 * What `retained setup <agent> --json` answers: the files it changes (each whole, before and
 * after), their digest, and whether it wrote them. VS Code's Set Up runs that command and reads
 * this, checked as any input is; the command line is the one place an agent is set up.
 */
import * as z from 'zod';
import { PATH_MAX } from './ids';

/** The largest configuration file setup edits: agents' settings are a few KiB. */
export const CONFIG_MAX_BYTES = 4 << 20;

export interface FileChange {
  path: string;
  /** The file's text before (undefined: no file) and after (undefined: the file goes). */
  before: string | undefined;
  after: string | undefined;
  /** A program the agent runs (mode 755). */
  executable?: boolean;
}

const Text = z.string().max(CONFIG_MAX_BYTES * 2);

const FileChangeSchema = z.strictObject({
  path: z.string().min(1).max(PATH_MAX),
  before: Text.optional(),
  after: Text.optional(),
  executable: z.boolean().optional(),
});

export const SetupAnswer = z.union([
  z.strictObject({
    /** What setup changes (nothing: set up already, or nothing to remove). */
    changes: z.array(FileChangeSchema).max(16),
    /** What `--expect` takes to write exactly these changes. */
    digest: z.string().regex(/^[0-9a-f]{64}$/),
    /** False with `--dry-run`, or when the files changed since the digest was given. */
    written: z.boolean(),
  }),
  z.strictObject({ error: z.string().max(PATH_MAX * 4) }),
]);
export type SetupAnswer = z.infer<typeof SetupAnswer>;
