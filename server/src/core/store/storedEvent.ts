/** A stored event read back: parsed and checked against the schema, whichever store it came from. */
import { check } from '../../../../shared/check';
import { StoredEventSchema, type TranscriptEvent } from '../../../../shared/events';

/** The event, or a string saying why the line is not one. */
export function parseEvent(text: string): TranscriptEvent | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `not JSON (a torn line?): ${text.slice(0, 60)}`;
  }
  try {
    return check(StoredEventSchema, value, 'event');
  } catch (err) {
    return (err as Error).message;
  }
}
