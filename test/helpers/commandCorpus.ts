// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these are shell commands, whose ${…} is the shell's
/**
 * Commands as coding agents write them, for the transparency suite: each runs plain and
 * rewritten (through `retained run`) under an agent's shell, and the two must not differ. The
 * first ones are the commands of the sessions in test/fixtures/ and ../shared/fixtures (their
 * paths made local); the rest are what models write every day, bash-only syntax among them,
 * in a project folder that `seedProject` makes (files, a venv's activate script, a script, a
 * git-free tree). Each is deterministic: no pids, no times, no randomness in what it prints.
 */
import { chmodSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CorpusCommand {
  command: string;
  /** Bytes for the command's stdin (else none: the agent's stdin is /dev/null). */
  stdin?: string;
}

/** When every file of the project was last written. */
const SEEDED_AT = new Date('2026-01-02T03:04:05Z');

/** The project every command runs in, made fresh for each run. */
export function seedProject(dir: string): void {
  mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
  mkdirSync(join(dir, 'venv', 'bin'), { recursive: true });
  mkdirSync(join(dir, 'test'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    '{\n  "name": "demo",\n  "version": "1.2.3",\n  "scripts": { "test": "node test/run.js" }\n}\n',
  );
  writeFileSync(join(dir, 'README.md'), '# Demo\n\nA small project.\n\n## Usage\n\nRun it.\n');
  writeFileSync(
    join(dir, 'src', 'index.ts'),
    "import { add } from './lib/math';\n// TODO: more\nexport const main = () => add(1, 2);\n",
  );
  writeFileSync(
    join(dir, 'src', 'lib', 'math.ts'),
    'export function add(a: number, b: number) {\n  return a + b;\n}\n// TODO: subtract\n',
  );
  writeFileSync(join(dir, 'data.csv'), 'id,name,score\n1,ada,90\n2,bob,72\n3,cy,85\n4,dee,72\n');
  writeFileSync(join(dir, 'words.txt'), 'pear\napple\nfig\napple\nkiwi\nbanana\nfig\n');
  writeFileSync(join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff, 0xfe, 0x00, 0x41]));
  writeFileSync(join(dir, 'noeol.txt'), 'last line without newline');
  writeFileSync(
    join(dir, 'test', 'run.js'),
    "console.log('1 passing');\nconsole.error('1 failing: expected 2 got 3');\nprocess.exit(1);\n",
  );
  writeFileSync(
    join(dir, 'venv', 'bin', 'activate'),
    'VIRTUAL_ENV="$PWD/venv"\nexport VIRTUAL_ENV\nPATH="$VIRTUAL_ENV/bin:$PATH"\nexport PATH\ndeactivate() { unset VIRTUAL_ENV; }\nalias py=python3\n',
  );
  writeFileSync(
    join(dir, 'venv', 'bin', 'pytest'),
    '#!/bin/sh\necho "collected 3 items"\necho "FAILED test_x.py::test_one - assert 1 == 2" >&2\nexit 1\n',
  );
  chmodSync(join(dir, 'venv', 'bin', 'pytest'), 0o755);
  writeFileSync(
    join(dir, 'build.sh'),
    '#!/usr/bin/env bash\nset -euo pipefail\necho "building $1"\n[[ -n "${FAIL:-}" ]] && { echo "error: failed" >&2; exit 4; }\necho done\n',
  );
  chmodSync(join(dir, 'build.sh'), 0o755);
  writeFileSync(join(dir, 'Makefile'), 'all:\n\t@echo make-all\nfail:\n\t@echo compiling\n\t@false\n');
  // One time for every file and folder: what a command copies of a time (gzip, tar, find -newer) is the same each run.
  const stamp = (path: string) => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) stamp(child);
      utimesSync(child, SEEDED_AT, SEEDED_AT);
    }
  };
  stamp(dir);
  utimesSync(dir, SEEDED_AT, SEEDED_AT);
}

/** From the recorded sessions, their paths made the project's own. */
const RECORDED = [
  'echo started; sleep 0.2; echo finished',
  'echo before-compaction',
  'echo after-compaction',
  'echo first',
  'echo second',
  'echo out; echo err >&2; exit 3',
  'seq 1 10000; echo "error: checksum mismatch in block 10001"; seq 10002 20000; exit 2',
  'seq 1 10000; echo "error: checksum mismatch in block 10001"; seq 10002 20000',
  'sleep 0.3; echo slow-A',
  'echo fast-B',
  'ls -1 | wc -l',
  'echo thought',
  'seq 1 6000; echo "error: linker failed at step 6001"; seq 6002 12000',
  'printf "a\\nb\\nc\\n"',
  'printf "a\\nb\\nc\\n" | wc -l',
  'echo one',
  'seq 1 30000',
  'ls /nonexistent-folder',
  'git log --oneline -10',
  'find . -name "package.json" -type f',
  'ls -la src/',
  'find src -name "*.ts" -type f | sort | head -20',
  'find . -name "*.css" -o -name "*.scss" | head -10',
  'find src -name "*.ts" 2>/dev/null | head -5',
  'tail -5 words.txt',
  'bd prime',
];

/** Everyday commands: listing, reading, searching, counting. */
const EVERYDAY = [
  'ls',
  'ls -1',
  'ls -la | tail -n +2 | wc -l',
  'ls src src/lib',
  'ls missing 2>&1',
  'cat package.json',
  'cat README.md | head -3',
  'head -n 2 data.csv',
  'tail -n 2 data.csv',
  'wc -l words.txt',
  'wc -c < words.txt',
  'sort words.txt',
  'sort -u words.txt',
  'sort words.txt | uniq -c | sort -rn',
  'cut -d, -f2 data.csv',
  'cut -d, -f3 data.csv | tail -n +2 | sort -n | head -1',
  "awk -F, 'NR>1 {s+=$3} END {print s}' data.csv",
  "awk -F, '$3 > 80 {print $2}' data.csv",
  "sed -n '2,3p' words.txt",
  "sed 's/apple/APPLE/g' words.txt",
  'grep -n TODO -r src',
  'grep -rn "TODO" src | wc -l',
  'grep -c apple words.txt',
  'grep -v apple words.txt',
  'grep -E "^(fig|kiwi)$" words.txt',
  'grep -l add -r src',
  'grep nothing-here words.txt',
  'grep nothing-here words.txt; echo "status $?"',
  'grep -q apple words.txt && echo found',
  'grep -rn "import" src --include=*.ts',
  'find . -type f | sort',
  'find . -type d | sort',
  'find . -name "*.ts" -exec wc -l {} + | sort',
  'find . -type f -name "*.json" | sort',
  'du -s src | cut -f2',
  'stat -c %s package.json',
  'file --version >/dev/null 2>&1 && echo has-file || echo no-file',
  'tr a-z A-Z < words.txt',
  "tr -d '\\n' < words.txt",
  'rev words.txt',
  'nl -ba words.txt',
  'paste -sd, words.txt',
  'comm -12 <(sort words.txt | uniq) <(printf "apple\\nfig\\n")',
  'diff <(sort words.txt) <(sort -u words.txt)',
  'diff <(echo a) <(echo b); echo "diff status $?"',
  'cmp words.txt words.txt && echo same',
  'md5sum words.txt',
  'sha256sum package.json',
  'basename src/lib/math.ts .ts',
  'dirname src/lib/math.ts',
  'realpath --relative-to=. src/lib',
  'printf "%s\\n" src/*.ts',
  'printf "%-6s|%4d\\n" ada 90 bob 72',
  'echo $((6 * 7))',
  'expr 6 \\* 7',
  'seq 5 | paste -sd+ | bc',
  'seq 3 | xargs -I{} echo item-{}',
  'seq 3 | xargs echo',
  'echo "a b c" | xargs -n1',
  'yes | head -3',
  'cat noeol.txt',
  'cat latin1.txt',
  'head -c 3 latin1.txt | od -An -tx1',
  'printf "\\xff\\xfe\\x00binary\\x01"',
  'printf "no newline at the end"',
  'printf ""',
  'true',
  'false',
  ':',
  'echo',
  'echo -n hi',
  'echo -e "tab\\there"',
  "echo 'single quotes $HOME'",
  'echo "double quotes ${HOME:+set}"',
  'echo "quote\\"inside"',
  "echo 'it'\"'\"'s'",
  'echo "unicode: héllo wörld ✓ 日本"',
  'echo "emoji 🚀"',
  'printf "%s" "$(printf "a\\nb")"',
  'echo a; echo b >&2; echo c; echo d >&2',
  'echo only-stderr >&2',
  'echo to-stderr 1>&2; exit 1',
  'ls nope 2>/dev/null || echo "no such file"',
  'cat missing.txt',
  'cat missing.txt 2>&1 | head -1',
  'command -v ls >/dev/null && echo has-ls',
  'command -v definitely-not-a-command || echo missing',
  'definitely-not-a-command',
  'definitely-not-a-command 2>&1; echo "status $?"',
  'type cd',
  'type -t ls',
  'which sh >/dev/null && echo ok',
  'hash -r; echo hashed',
  'umask',
  'pwd',
  'cd src && pwd',
  'cd src/lib && ls && cd ../.. && ls package.json',
  'cd /nonexistent 2>&1; echo "cd status $?"',
  'pushd src >/dev/null && pwd && popd >/dev/null && pwd',
  'env | grep -c "^PATH="',
  'printenv HOME >/dev/null && echo has-home',
  'echo "${UNSET_VAR:-default}"',
  'echo "${UNSET_VAR-dash}"',
  "X=1 sh -c 'echo $X'",
  'export FOO=bar; echo $FOO',
  'FOO=bar; echo ${#FOO}',
  'unset FOO; echo "[${FOO}]"',
  'readonly R=1; echo $R',
  'echo $0',
  'echo $#',
  'echo "$@"',
  'set -- a b c; echo $# $2',
  'shift 2>/dev/null; echo shifted',
];

/** bash-only syntax: what dash (`/bin/sh` on Debian and Ubuntu) runs differently or refuses. */
const BASH_ONLY = [
  'echo {1..5}',
  'echo {a,b,c}.txt',
  'echo file{01..03}',
  'mkdir -p out/{a,b}/x && find out | sort',
  '[[ -f package.json ]] && echo is-file',
  '[[ "abc" == a* ]] && echo glob-match',
  '[[ "abc123" =~ ^[a-z]+([0-9]+)$ ]] && echo "${BASH_REMATCH[1]}"',
  '[[ 2 -lt 10 ]] && echo numeric',
  '[[ -z "" && -n x ]] && echo both',
  'arr=(one two three); echo ${arr[1]} ${#arr[@]}',
  'arr=(one two three); for x in "${arr[@]}"; do echo "- $x"; done',
  'arr=(b a c); IFS=$\'\\n\' sorted=($(sort <<<"${arr[*]}")); echo "${sorted[@]}"',
  'declare -A m=([k]=v [x]=y); echo ${m[k]} ${#m[@]}',
  'declare -i n=5; n+=2; echo $n',
  'declare -a list; list+=(x); list+=(y); echo ${list[@]}',
  'local_fn() { local v=inner; echo $v; }; local_fn',
  'function greet { echo "hello $1"; }; greet world',
  'f() { return 3; }; f; echo "ret $?"',
  's="hello world"; echo ${s^^} ${s:0:5} ${s/world/there} ${#s}',
  's=path/to/file.tar.gz; echo ${s##*/} ${s%%.*} ${s%.*} ${s#*/}',
  'v=abc; echo ${v,,} ${v^}',
  'echo $"localized"',
  "echo $'a\\tb\\nc'",
  'read -r a b <<<"first second"; echo "$b $a"',
  'cat <<<"here string"',
  'while read -r line; do echo "> $line"; done < words.txt',
  'while IFS=, read -r id name score; do echo "$name=$score"; done < <(tail -n +2 data.csv)',
  'mapfile -t lines < words.txt; echo ${#lines[@]} ${lines[0]}',
  'readarray -t l < data.csv; echo "${l[-1]}"',
  'source venv/bin/activate && echo "$VIRTUAL_ENV" | sed "s|$PWD|.|"',
  '. venv/bin/activate; type -t deactivate',
  'source venv/bin/activate && pytest',
  'source venv/bin/activate && pytest; echo "pytest exit $?"',
  'source ./missing-env.sh 2>&1; echo "after $?"',
  'set -o pipefail; false | true; echo "status $?"',
  'false | true; echo "status $?"',
  'set -euo pipefail; echo start; false; echo never',
  'set -euo pipefail; echo ${UNDEFINED_VAR}',
  'set -e; trap "echo cleanup" EXIT; echo work',
  'set -x; echo traced',
  'set -u; echo "${1:-no-args}"',
  'trap "echo on-exit" EXIT; exit 5',
  'trap "echo caught" ERR; false; echo continued',
  'shopt -s nullglob; for f in *.none; do echo $f; done; echo end',
  'shopt -s globstar; printf "%s\\n" src/**/*.ts',
  'shopt -s extglob; ls !(src|venv|test) | sort',
  'shopt login_shell',
  'echo ${BASH_VERSINFO[0]} | grep -qE "^[0-9]+$" && echo bash',
  'echo $((2**10))',
  '(( 3 > 2 )) && echo arith',
  'let x=4*5; echo $x',
  'for ((i=0; i<3; i++)); do echo "i=$i"; done',
  'for i in $(seq 3); do echo "n$i"; done',
  'select x in a; do break; done </dev/null; echo selected',
  'case "foo.ts" in *.ts) echo typescript;; *) echo other;; esac',
  'x=3; until [ $x -eq 0 ]; do echo $x; x=$((x-1)); done',
  'printf -v out "%03d" 7; echo $out',
  'echo "${PIPESTATUS[@]}"',
  'true | false | true; echo "${PIPESTATUS[@]}"',
  'coproc cat_proc { cat; }; echo hi >&"${cat_proc[1]}"; exec {cat_proc[1]}>&-; read -r l <&"${cat_proc[0]}"; echo "$l"',
  'exec 3>out.txt; echo via-fd3 >&3; exec 3>&-; cat out.txt',
  'exec 4<words.txt; read -r first <&4; echo $first',
  'echo to-file &> both.txt; cat both.txt',
  'ls missing &>> both.txt; wc -l < both.txt',
  'echo ok |& cat',
  'time_fmt=$(TIMEFORMAT=%0R; { time true; } 2>&1); echo "[$time_fmt]"',
  'diff <(printf "1\\n2\\n") <(printf "1\\n3\\n")',
  'paste <(seq 3) <(seq 4 6)',
  'wc -l < <(seq 7)',
  'cat < <(echo process-substitution)',
  'echo "$(< words.txt)" | head -1',
  'echo $RANDOM | grep -qE "^[0-9]+$" && echo random-ok',
  'echo ${!BASH*} | grep -q BASH_VERSION && echo indirect',
  'ref=HOME; echo ${!ref:+resolved}',
  'declare -f >/dev/null; echo declared',
  'compgen -c ls | head -1',
  'enable -n echo 2>/dev/null; echo builtin-off',
  'printf "%q\\n" "a b\'c"',
  'caller 2>/dev/null; echo "caller $?"',
  'echo ${BASH_SOURCE:-none}',
  'echo "$-" | grep -q c && echo has-c-flag',
  'dirs',
  'ulimit -n >/dev/null && echo limit',
  'wait; echo waited',
  'alias ll="ls -l"; ll >/dev/null 2>&1; echo "alias status $?"',
];

/** Heredocs, subshells, groups, background jobs. */
const STRUCTURE = [
  'cat <<EOF\nhello $HOME-ish\nEOF',
  "cat <<'EOF'\nliteral $HOME and `backticks`\nEOF",
  'cat <<-EOF\n\tindented\n\tEOF',
  "cat > notes.md <<'EOF'\n# Notes\n- one\n- two\nEOF\ncat notes.md",
  "python3 - <<'EOF'\nprint(sum(range(10)))\nEOF",
  "node - <<'EOF'\nconsole.log([1,2,3].map(x => x * 2).join(','))\nEOF",
  'bash <<\'EOF\'\necho nested bash\nexit 3\nEOF\necho "nested status $?"',
  'cat <<EOF | wc -l\na\nb\nc\nEOF',
  "cat <<'RETAINED_OUTPUTS_EOF'\na line that looks like our tag\nRETAINED_OUTPUTS_EOF",
  'echo RETAINED_OUTPUTS_EOF',
  "printf 'RETAINED_OUTPUTS_EOF\\n'",
  '(cd src && ls)',
  '(echo in-subshell; exit 4); echo "sub $?"',
  '{ echo grouped; echo together; } | tr a-z A-Z',
  '{ echo a; echo b >&2; } 2>&1 | sort',
  '( umask 077; touch private.txt ); stat -c %a private.txt',
  'x=outer; (x=inner; echo $x); echo $x',
  'echo $(echo $(echo nested))',
  'echo `echo backticks`',
  'out=$(ls missing 2>&1); echo "captured: ${out:0:10}"',
  'sleep 0.2 & wait; echo after-wait',
  'sleep 0.1 & pid=$!; wait $pid; echo "bg status $?"',
  '(sleep 0.2; echo late) & echo early; wait',
  'for i in 1 2 3; do (echo job$i) & done | sort; wait',
  'nohup sh -c "echo from-nohup" > nohup.log 2>&1; cat nohup.log',
  'sh -c "exit 7"; echo "sh status $?"',
  'bash -c "echo in-bash-c \\$0"',
  'sh -c "echo \\$0" shell-name',
  'exec echo replaced-shell',
  'exit 0',
  'exit 1',
  'exit 2',
  'exit 42',
  'exit 255',
  'exit 256',
  'echo partial; exit 3',
  'kill -TERM $$',
  'kill -INT $$; echo not-reached',
  'kill -KILL $$',
  'kill -SEGV $$',
  'sh -c \'kill -SEGV $$\'; echo "child segv $?"',
  "sh -c 'kill -TERM $$'",
  "sh -c 'kill -ABRT $$'",
  'timeout 0.2 sleep 5; echo "timeout status $?"',
  'timeout -s KILL 0.2 sleep 5',
  'ulimit -c 0; sh -c \'kill -QUIT $$\'; echo "quit $?"',
  'trap "" TERM; echo ignoring',
  'read -t 0.1 x; echo "read status $?"',
  'read line; echo "got [$line]"',
  'cat',
  'cat -',
  'wc -l',
  'head -1',
  'tr a-z A-Z',
  'read -r a; read -r b; echo "$b|$a"',
  'while read -r l; do echo "line: $l"; done',
  'python3 -c "import sys; print(len(sys.stdin.read()))"',
  'node -e "process.stdin.on(\'data\', d => process.stdout.write(String(d).toUpperCase()))"',
  '[ -t 0 ] && echo tty || echo not-tty',
  '[ -t 1 ] && echo tty-out || echo pipe-out',
  'test -p /dev/stdin && echo stdin-pipe || echo stdin-other',
];

/** Files changed: the side effects compared after each run. */
const SIDE_EFFECTS = [
  'touch new.txt && ls new.txt',
  'mkdir -p a/b/c && touch a/b/c/d && find a | sort',
  'echo appended >> words.txt && tail -1 words.txt',
  'rm words.txt && ls words.txt 2>&1',
  'rm -rf src && ls',
  'mv data.csv data.old && ls data.*',
  'cp -r src src2 && diff -r src src2 && echo copied',
  'ln -s package.json link.json && readlink link.json',
  'chmod 600 package.json && stat -c %a package.json',
  "sed -i 's/1.2.3/1.2.4/' package.json && grep version package.json",
  'printf "x\\0y" > nul.bin; od -c nul.bin | head -1',
  'echo hi > out.txt; echo there >> out.txt; cat out.txt',
  'tee copy.txt < words.txt | wc -l',
  'seq 3 | tee seq.txt >/dev/null; cat seq.txt',
  'touch -d "2020-01-01 00:00:00" old.txt && stat -c %Y old.txt',
  'split -l 2 words.txt part- && ls part-* | sort',
  'tar cf src.tar src && tar tf src.tar | sort && rm src.tar',
  'gzip -k words.txt && ls words.txt*',
  'mktemp -p . tmp.XXXXXX >/dev/null && ls tmp.* | wc -l && rm tmp.*',
  'dd if=/dev/zero of=zero.bin bs=1k count=4 2>/dev/null && stat -c %s zero.bin',
  'truncate -s 100 sized.bin && stat -c %s sized.bin',
  'echo "$(date -u -d @0 +%Y)" > epoch.txt; cat epoch.txt',
  'npm test',
  'npm test 2>&1 | tail -2',
  'node test/run.js; echo "node exit $?"',
  'make',
  'make fail',
  'make fail 2>&1; echo "make $?"',
  './build.sh release',
  'FAIL=1 ./build.sh release',
  'FAIL=1 ./build.sh release; echo "build $?"',
  'bash build.sh debug',
  'sh ./build.sh dash 2>&1 | head -2',
  './missing-script.sh',
  'chmod -x build.sh && ./build.sh 2>&1; echo "noexec $?"',
  'git init -q repo && cd repo && git status --short | wc -l',
  'git -C nowhere status 2>&1 | head -1',
  'python3 -c "print(1/0)"',
  'python3 -c "import sys; sys.exit(3)"',
  "python3 -c \"import sys; sys.stdout.write('x' * 10); sys.stderr.write('y' * 5)\"",
  'node -e "console.log(process.argv.length)"',
  'node -e "process.exitCode = 9"',
  'node -e "throw new Error(\'boom\')" 2>&1 | head -1',
  'node -e "process.kill(process.pid, \'SIGTERM\')"',
  'node -e "setTimeout(() => console.log(\'timer\'), 100)"',
  'python3 -c "import os; print(os.getcwd() == os.environ[\'PWD\'])"',
];

/** Big outputs (over the threshold): the value must hold the plain output, byte for byte. */
const BIG = [
  'seq 1 50000',
  'seq 1 20000 >&2',
  'seq 1 100000; exit 2',
  'yes "a fairly long line of build output that repeats" | head -n 5000',
  'for i in $(seq 1 3000); do echo "[$i] compiling module_$i.ts"; done; echo "error TS2304: Cannot find name foo"; exit 1',
  'head -c 300000 /dev/zero | tr "\\0" "x"',
  'printf "%.0s\\xff\\xfe" {1..20000}',
  'seq 1 40000 | sed "s/^/line /"',
  'find / -maxdepth 0; seq 1 30000',
];

/** Long command lines: no quoting may make them fail where the plain ones run. */
const LONG = [
  `echo ${'x'.repeat(60_000)} | wc -c`,
  `printf '%s' '${"it's ".repeat(10_000).replace(/'/g, "'\\''")}' | wc -c`,
  `echo "${'"quoted" '.repeat(8000).replace(/"/g, '\\"')}" | wc -c`,
  `${'true && '.repeat(5000)}echo many-ands`,
];

/** With stdin given: what the agent would pipe in. */
const WITH_STDIN: CorpusCommand[] = [
  { command: 'cat', stdin: 'piped in\n' },
  { command: 'wc -l', stdin: 'a\nb\nc\n' },
  { command: 'read line; echo "got [$line]"', stdin: 'answer\n' },
  { command: 'read -r a; read -r b; echo "$b|$a"', stdin: 'one\ntwo\n' },
  { command: 'sort -r', stdin: 'b\na\nc\n' },
  { command: 'tr a-z A-Z', stdin: 'shout\n' },
  { command: 'head -c 5', stdin: 'abcdefgh' },
  { command: 'python3 -c "import sys; print(sys.stdin.read().split())"', stdin: 'x y z\n' },
  { command: 'cat > from-stdin.txt; wc -c < from-stdin.txt', stdin: 'saved\n' },
  { command: 'od -An -tx1', stdin: '\u00ff\u0000binary' },
  { command: 'while read -r l; do echo "line: $l"; done', stdin: '1\n2\n' },
  { command: 'xargs echo args:', stdin: 'a b\nc\n' },
];

export const CORPUS: readonly CorpusCommand[] = [
  ...RECORDED,
  ...EVERYDAY,
  ...BASH_ONLY,
  ...STRUCTURE,
  ...SIDE_EFFECTS,
  ...BIG,
  ...LONG,
]
  .map((command) => ({ command }))
  .concat(WITH_STDIN);
