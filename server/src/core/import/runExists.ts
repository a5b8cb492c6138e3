/** The error an import answers when its run exists; `data.runId` names it. A module of its own: the server knows it without loading the converters. */
import { InvalidInput } from '../../../../shared/invalidInput';

export class RunExists extends InvalidInput {
  constructor(readonly runId: string) {
    super(`run ${runId} exists already: pass ifExists "replace" to replace it, or "new" to import as a new run`);
  }
}
