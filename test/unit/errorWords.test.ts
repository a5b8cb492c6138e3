import assert from 'node:assert/strict';
import { inWords } from '../../server/src/core/store/errorWords';

describe('a file system refusal in words', () => {
  it('names the folder, why in words, and the code last', () => {
    const err = Object.assign(
      new Error("EROFS: read-only file system, open '/w/.retained/runs/ro.jsonl.tmp-27887-57fd'"),
      {
        code: 'EROFS',
        syscall: 'open',
        path: '/w/.retained/runs/ro.jsonl.tmp-27887-57fd',
      },
    );
    assert.equal(inWords(err), 'Could not write to /w/.retained/runs: it is on a read-only file system (EROFS).');
  });

  it('leaves any other error as it is', () => {
    assert.equal(inWords(new Error('no run "x" in the store')), 'no run "x" in the store');
    assert.equal(inWords(Object.assign(new Error('odd'), { code: 'EWHAT', path: '/p' })), 'odd');
    assert.equal(inWords(Object.assign(new Error('no path'), { code: 'ENOSPC' })), 'no path');
    assert.equal(inWords('a string thrown'), 'a string thrown');
    assert.equal(inWords(undefined), 'undefined');
  });
});
