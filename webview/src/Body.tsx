/** A body of text (a message, arguments, a result, a stub) rendered as text only. */
import { memo } from 'react';
import { formatBytes } from '../../shared/format';
import type { Clip } from '../../shared/protocol';
import { LinkButton } from './LinkButton';
import { type Highlight, segments } from './segments';

export interface BodyProps {
  clip: Clip;
  /** A stub or reference: its id and line numbers are links. */
  links?: boolean;
  highlight?: Highlight | undefined;
  onOpen: (valueId: string, line?: number, endLine?: number) => void;
  /** The value holding the whole body, for the "open the rest" link of a cut body. */
  valueId?: string | undefined;
  /** Opens the whole body from the transcript, for a cut body that is not a value. */
  onOpenAll?: (() => void) | undefined;
}

export const Body = memo(function Body({ clip, links, highlight, onOpen, valueId, onOpenAll }: BodyProps) {
  const shownLines = clip.text.length === 0 ? 0 : clip.text.split('\n').length;
  const parts = segments(clip.text, { links: links ?? false, ...(highlight ? { highlight } : {}) });
  // Each match knows its line, so a search hit's line can be scrolled to.
  let line = 1;
  const lineOf = parts.map((s) => {
    const at = line;
    for (let i = s.text.indexOf('\n'); i >= 0; i = s.text.indexOf('\n', i + 1)) line++;
    return at;
  });
  return (
    <>
      <pre className="body">
        {parts.map((s, i) =>
          s.kind === 'text' ? (
            s.text
          ) : s.kind === 'match' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: a segment is its position in the text, which does not change.
            <mark key={i} data-line={lineOf[i]}>
              {s.text}
            </mark>
          ) : (
            <LinkButton
              // biome-ignore lint/suspicious/noArrayIndexKey: as above.
              key={i}
              className="value-link"
              title={
                s.endLine
                  ? `Open #${s.valueId}, lines ${s.line}-${s.endLine}`
                  : s.line
                    ? `Open #${s.valueId} at line ${s.line}`
                    : `Open #${s.valueId}`
              }
              onClick={() => {
                onOpen(s.valueId, s.line, s.endLine);
              }}
            >
              {s.text}
            </LinkButton>
          ),
        )}
      </pre>
      {clip.cut && (
        <div className="cut-note">
          <span className="codicon codicon-fold" aria-hidden="true" /> Showing {shownLines.toLocaleString()} of{' '}
          {clip.lines.toLocaleString()} lines ({formatBytes(clip.bytes)}).{' '}
          {valueId ? (
            <LinkButton
              onClick={() => {
                onOpen(valueId);
              }}
            >
              Open the original
            </LinkButton>
          ) : onOpenAll ? (
            <LinkButton
              onClick={() => {
                onOpenAll();
              }}
            >
              Open it all in an editor
            </LinkButton>
          ) : null}
        </div>
      )}
    </>
  );
});
