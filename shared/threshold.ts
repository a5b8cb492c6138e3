/**
 * The default threshold: a result over this many bytes (UTF-8) is retained. In a module of its
 * own, importing nothing, so the command line's first file (server/src/cli.ts) knows it without
 * loading the rest.
 */
export const DEFAULT_THRESHOLD_BYTES = 20480;
