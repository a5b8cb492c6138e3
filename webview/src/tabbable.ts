/**
 * Whether the controls inside a row take Tab. The list of events is one tab stop per row: a
 * row's links (a stub's line numbers, "open the original", "model call k") take Tab only once
 * the keyboard has entered the row (Enter), and leave the tab order again on Escape.
 */
import { createContext, useContext } from 'react';

export const Tabbable = createContext(true);

/** The tabIndex a control inside a row gets: its own, or -1 while its row is not entered. */
export function useTabIndex(): number | undefined {
  return useContext(Tabbable) ? undefined : -1;
}
