export declare const ROOT: string;
export declare const CHROMIUM = '/usr/bin/chromium';
export interface Tools {
  node24: string;
  codeServer: string;
}
/** Runs the idempotent setup script once per process; fails loudly if anything is missing. */
export declare function ensureTools(): Tools;
export declare function packageExtension(): string;
