/** A result held in a file, read as a stream of pieces (the Claude Code hook's saved output, retained/retainFile). */
import { openRegular } from '../store/safeFs';

/**
 * The file's bytes, 1 MiB at a time, then `after`. Refused unless it is a regular file, opened
 * without blocking and not through a link (a FIFO named by mistake does not hang the reader).
 */
export async function* fileChunks(path: string, after = ''): AsyncGenerator<Buffer> {
  const handle = await openRegular(path);
  try {
    for await (const chunk of handle.createReadStream({ autoClose: false, highWaterMark: 1 << 20 }))
      yield chunk as Buffer;
  } finally {
    await handle.close();
  }
  if (after) yield Buffer.from(after, 'utf8');
}
