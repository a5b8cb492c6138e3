/** A result held in a file, read as a stream of pieces (the Claude Code hook's saved output, retained/retainFile). */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * The file's bytes, 1 MiB at a time, then `after`. Opened without blocking (a FIFO named by
 * mistake does not hang the reader) and refused unless it is a regular file.
 */
export async function* fileChunks(path: string, after = ''): AsyncGenerator<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${path} is not a regular file`);
    for await (const chunk of handle.createReadStream({ autoClose: false, highWaterMark: 1 << 20 }))
      yield chunk as Buffer;
  } finally {
    await handle.close();
  }
  if (after) yield Buffer.from(after, 'utf8');
}
