/** Search the whole run: a query, its options, the count, stepping through the hits, and where the current one is. */
import VscodeButton from '@vscode-elements/react-elements/dist/components/VscodeButton.js';
import VscodeTextfield from '@vscode-elements/react-elements/dist/components/VscodeTextfield.js';
import { useState } from 'react';
import { Checkbox } from './Checkbox';
import type { SearchState } from './hooks/useRunSearch';
import { LinkButton } from './LinkButton';

export function SearchBar({
  search,
  onSearch,
  onStep,
  onOpenHit,
}: {
  search: SearchState;
  onSearch: (search: Omit<SearchState, 'current'>) => void;
  onStep: (delta: number) => void;
  /** Opens the current hit's value at its line; absent when the hit is not in a retained value. */
  onOpenHit?: (() => void) | undefined;
}) {
  const [draft, setDraft] = useState(search.query);
  const hits = search.result?.hits ?? [];
  const hit = hits[search.current];
  const submit = () => onSearch({ query: draft, ignoreCase: search.ignoreCase, regex: search.regex });
  return (
    <search className="search-row">
      {/* Typing and keys are handled on a plain wrapper, where React's own events reach. */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the events are the text field's, caught here as they bubble. */}
      <div
        className="search-field"
        onInput={(event) => {
          const value = (event.target as HTMLInputElement).value;
          setDraft(value);
          // A cleared field clears the hits and their highlights.
          if (!value && search.query) onSearch({ query: '', ignoreCase: search.ignoreCase, regex: search.regex });
        }}
        onKeyDown={(event) => {
          if (event.key !== 'Enter') return;
          event.preventDefault();
          if (search.result && draft === search.query) onStep(event.shiftKey ? -1 : 1);
          else submit();
        }}
      >
        <VscodeTextfield
          className="search-input"
          placeholder="Search the whole transcript (Enter: next match)"
          aria-label="Search the whole transcript"
          value={draft}
        >
          <span slot="content-before" className="codicon codicon-search" aria-hidden="true" />
        </VscodeTextfield>
      </div>
      <Checkbox
        checked={search.ignoreCase}
        label="Ignore case"
        onToggle={(ignoreCase) => onSearch({ query: search.query, ignoreCase, regex: search.regex })}
      />
      <Checkbox
        checked={search.regex}
        label="Regex"
        onToggle={(regex) => onSearch({ query: search.query, ignoreCase: search.ignoreCase, regex })}
      />
      <span className="search-count" role="status">
        {draft !== search.query && draft
          ? 'Enter to search'
          : search.busy
            ? 'Searching…'
            : search.error
              ? search.error
              : search.result
                ? hits.length
                  ? `${search.current + 1} / ${search.result.total.toLocaleString()}${search.result.more ? '+' : ''}`
                  : 'No results'
                : ''}
      </span>
      <VscodeButton
        icon="arrow-up"
        iconOnly
        secondary
        title="Previous match (Shift+Enter)"
        aria-label="Previous match"
        disabled={hits.length === 0}
        onClick={() => onStep(-1)}
      />
      <VscodeButton
        icon="arrow-down"
        iconOnly
        secondary
        title="Next match (Enter)"
        aria-label="Next match"
        disabled={hits.length === 0}
        onClick={() => onStep(1)}
      />
      <span className="hit-where">
        {hit && (
          <>
            event #{hit.index}, {hit.where} line {hit.line.toLocaleString()}{' '}
            {onOpenHit && (
              <LinkButton
                onClick={() => {
                  onOpenHit();
                }}
              >
                open there
              </LinkButton>
            )}
          </>
        )}
      </span>
    </search>
  );
}
