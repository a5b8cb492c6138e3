// `npm run build:kernel`: writes the scan kernel's binary from its text (see kernel.ts).
import { writeFileSync } from 'node:fs';
import { compileKernel, KERNEL } from './kernel';

void compileKernel().then((binary) => {
  writeFileSync(`${KERNEL}.wasm`, binary);
  console.log(`wrote ${KERNEL}.wasm`);
});
