/** Finds `[retained #id]` stub references in text, for document links and hovers. */

export interface StubRef {
  valueId: string;
  /** Offsets of the `[retained #id]` text. */
  start: number;
  end: number;
}

const STUB_REF = /\[retained #([A-Za-z0-9_-]{1,64})\]/g;

export function findStubRefs(text: string): StubRef[] {
  const refs: StubRef[] = [];
  for (const match of text.matchAll(STUB_REF)) {
    refs.push({ valueId: match[1]!, start: match.index!, end: match.index! + match[0].length });
  }
  return refs;
}

export function stubRefAt(text: string, offset: number): StubRef | undefined {
  // Look only at the line around the offset: documents can be large.
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEndAt = text.indexOf('\n', offset);
  const lineEnd = lineEndAt === -1 ? text.length : lineEndAt;
  return findStubRefs(text.slice(lineStart, lineEnd))
    .map((ref) => ({ ...ref, start: ref.start + lineStart, end: ref.end + lineStart }))
    .find((ref) => ref.start <= offset && offset <= ref.end);
}
