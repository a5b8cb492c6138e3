/**
 * A body's size as a JSON string, counted without building it, and the sample its tokens are
 * counted on. Apart from the tokenizer, so a scan never loads its tables.
 */
import { utf8Bytes } from './bytes';

/** A body longer than this is tokenized on a sample and scaled: an estimate, said so where shown. */
export const TOKEN_SAMPLE_CHARS = 65_536;

/**
 * The UTF-8 size of `text` as a JSON string, quotes included, counted instead of built: a
 * 50 MB body would otherwise be copied into a 50 MB JSON string just to be measured.
 */
export function jsonStringBytes(text: string, ascii = false): number {
  let extra = 2;
  for (const ch of ['"', '\\', '\n', '\r', '\t', '\b', '\f']) {
    for (let at = text.indexOf(ch); at !== -1; at = text.indexOf(ch, at + 1)) extra++;
  }
  // Other control characters become \u00XX: 6 bytes for 1.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what is counted.
  const controls = /[\u0000-\u0007\u000b\u000e-\u001f]/g;
  while (controls.exec(text)) extra += 5;
  if (ascii) return utf8Bytes(text) + extra;
  // A lone surrogate becomes \udXXX: 6 bytes where UTF-8 counts its replacement as 3.
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
  while (lone.exec(text)) extra += 3;
  return utf8Bytes(text) + extra;
}
