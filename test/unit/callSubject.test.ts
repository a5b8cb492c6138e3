import assert from 'node:assert/strict';
import { callSubject, subjectFileName } from '../../shared/callSubject';

describe('what a call worked on', () => {
  it('takes the command, the pattern, the URL or the file, in that order', () => {
    assert.deepEqual(callSubject({ command: 'npm   test\n  --silent', description: 'Run' }), {
      text: 'npm test --silent',
      isFile: false,
    });
    assert.deepEqual(callSubject({ pattern: 'TODO', path: 'src' }), { text: 'TODO', isFile: false });
    assert.deepEqual(callSubject({ file_path: '/a/b/c.json' }), { text: '/a/b/c.json', isFile: true });
    assert.equal(subjectFileName(callSubject({ file_path: '/a/b/c.json' })), 'c.json');
    assert.equal(subjectFileName(callSubject({ command: 'cat c.json' })), undefined);
  });

  it("reads Codex's JSON-string arguments and its [shell, -lc, command] arrays", () => {
    assert.deepEqual(callSubject('{"command":["bash","-lc","cargo build"]}'), { text: 'cargo build', isFile: false });
    assert.deepEqual(callSubject({ command: ['git', 'status'] }), { text: 'git status', isFile: false });
  });

  it('keeps a long path by its end and a long command by its start, 80 characters at most', () => {
    const path = `/${'deep/'.repeat(30)}file.ts`;
    const file = callSubject({ path })!;
    assert.equal(file.text.length, 80);
    assert.ok(file.text.endsWith('/file.ts') && file.text.startsWith('…'));
    assert.equal(subjectFileName(file), 'file.ts');
    const command = callSubject({ command: `echo ${'x'.repeat(200)}` })!;
    assert.equal(command.text.length, 80);
    assert.ok(command.text.startsWith('echo x') && command.text.endsWith('…'));
  });

  it('gives nothing for arguments it cannot read', () => {
    for (const args of [undefined, null, 7, 'not json', [1, 2], { other: 'x' }, { command: '   ' }, { command: [1] }])
      assert.equal(callSubject(args), undefined, JSON.stringify(args));
  });
});
