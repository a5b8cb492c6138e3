/**
 * The scan kernel's build: its text (server/src/core/kernel/scanKernel.wat) made into the
 * binary kept beside it. The binary is in the repository so the sources run as they are (tests
 * under tsx, the bundles' copy); a unit test fails when it is not what this makes of the text.
 */
import { readFileSync } from 'node:fs';
import wabt from 'wabt';

export const KERNEL = 'server/src/core/kernel/scanKernel';

/** The binary the kernel's text makes. */
export async function compileKernel(): Promise<Buffer> {
  const module = (await wabt()).parseWat(`${KERNEL}.wat`, readFileSync(`${KERNEL}.wat`, 'utf8'), { simd: true });
  try {
    module.validate();
    return Buffer.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}
