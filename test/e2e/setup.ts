/**
 * Before any suite: the tools installed (scripts/setup-e2e.sh, minutes on a machine whose cache is
 * empty) and the two extensions packaged, outside every hook's timeout, so the first suite's
 * `before` times only what it starts itself.
 */
import { ensureTools, packageExtension, packageProbe } from '../../scripts/tools';

export function mochaGlobalSetup(): void {
  ensureTools();
  packageExtension();
  packageProbe();
}
