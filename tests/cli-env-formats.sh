#!/bin/sh
# clrtrace env --format shell|systemd|docker|dotenv: each format read back
# by its consumer (a POSIX shell's eval, `set -a; . FILE`, the arguments a
# shell hands to docker, systemd's unit parser and quoting rules) gives the
# very values of the variables; --systemd is --format systemd; a bad format
# is a one-line error with exit status 2.
. "${top_srcdir:-.}/tests/lib.sh"

# values that need quoting: quotes, spaces, $, a backquote, %, a backslash, a newline, a tab
nl='
'
tab=$(printf '\t')
set -- -o "file:$OUT/it's a \"trace\" \$HOME \`x\` %%-%p.jsonl" -p "it's * \\x${tab}y" -x "Odd\$Name${nl}Exception"

# norm: NUL-separated NAME=VALUE on stdin, the tracer's ones sorted (not CLRTRACE_LIBRARY, the
# test's own), one per line (as Python bytes literals)
norm() { python3 -c 'import sys; print("\n".join(sorted(repr(x) for x in sys.stdin.buffer.read().split(b"\0") if x.startswith((b"CORECLR_", b"CLRTRACE_")) and not x.startswith(b"CLRTRACE_LIBRARY="))))'; }
# the reference: every NAME=VALUE as the environment hands it to a program
vars() { env -0 | norm; }
( eval "$("$CLRTRACE" env "$@")" && vars ) >"$OUT/default.vars"
expect "the default: export lines a shell's eval reads" "$?" 0
grep -qF 'b"CLRTRACE_PROCESSES=it'\''s * \\x\ty"' "$OUT/default.vars" && ok "the reference holds the odd values" ||
	fail "reference: $(cat "$OUT/default.vars")"

# shell: the same as the default
"$CLRTRACE" env --format shell "$@" >"$OUT/shell.out"
"$CLRTRACE" env "$@" >"$OUT/default.out"
cmp -s "$OUT/shell.out" "$OUT/default.out" && ok "--format shell is the default" || fail "--format shell differs from the default"
( eval "$(cat "$OUT/shell.out")" && vars ) >"$OUT/shell.vars"
cmp -s "$OUT/shell.vars" "$OUT/default.vars" && ok "shell: eval gives the values" || fail "shell: $(diff "$OUT/default.vars" "$OUT/shell.vars")"

# dotenv: NAME=VALUE lines that a POSIX shell reads with set -a; . FILE
"$CLRTRACE" env --format dotenv "$@" >"$OUT/env.dotenv"
expect "dotenv: exit status" "$?" 0
grep -q '^export ' "$OUT/env.dotenv" && fail "dotenv: export in the lines" || ok "dotenv: plain NAME=VALUE lines"
grep -q '^CORECLR_ENABLE_PROFILING=1$' "$OUT/env.dotenv" && ok "dotenv: a plain value is bare" || fail "dotenv: $(cat "$OUT/env.dotenv")"
( set -a; . "$OUT/env.dotenv"; set +a; vars ) >"$OUT/dotenv.vars"
cmp -s "$OUT/dotenv.vars" "$OUT/default.vars" && ok "dotenv: set -a; . FILE gives the values" ||
	fail "dotenv: $(diff "$OUT/default.vars" "$OUT/dotenv.vars")"
( set -a; . "$OUT/env.dotenv"; set +a; vars ) >/dev/null 2>"$OUT/dotenv.err"
[ -s "$OUT/dotenv.err" ] && fail "dotenv: the shell complained: $(cat "$OUT/dotenv.err")" || ok "dotenv: the shell reads it cleanly"

# docker: -e NAME=VALUE arguments on one line, as a shell hands them to docker run
"$CLRTRACE" env --format docker "$@" >"$OUT/docker.out"
expect "docker: one command line of -e arguments" "$(head -c 3 "$OUT/docker.out")" "-e "
(
	eval "set -- $(cat "$OUT/docker.out")"
	bad=0
	while [ $# -gt 0 ]; do
		[ "$1" = -e ] && [ $# -ge 2 ] || { echo "not -e NAME=VALUE: $1" >&2; bad=1; break; }
		printf '%s\0' "$2"
		shift 2
	done | norm
	exit $bad
) >"$OUT/docker.vars"
expect "docker: only -e NAME=VALUE pairs" "$?" 0
cmp -s "$OUT/docker.vars" "$OUT/default.vars" && ok "docker: the arguments give the values" ||
	fail "docker: $(diff "$OUT/default.vars" "$OUT/docker.vars")"

# systemd: a [Service] drop-in; --systemd is the same
"$CLRTRACE" env --format systemd "$@" >"$OUT/systemd.out"
"$CLRTRACE" env --systemd "$@" >"$OUT/systemd-alias.out"
cmp -s "$OUT/systemd.out" "$OUT/systemd-alias.out" && ok "--systemd is --format systemd" || fail "--systemd differs"
expect "systemd: a [Service] section" "$(head -1 "$OUT/systemd.out")" "[Service]"
expect "systemd: one Environment= line a variable" "$(grep -c '^Environment="' "$OUT/systemd.out")" "$(wc -l <"$OUT/default.vars" | tr -d ' ')"
# systemd's rules: specifiers first (%% is %), then the quotes and C escapes come off
python3 - "$OUT/systemd.out" >"$OUT/systemd.vars" <<'PY'
import re, sys
out = []
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.fullmatch(r'Environment="(.*)"\n', line)
    if not m:
        continue
    v = m.group(1).replace("%%", "%")
    v = re.sub(r'\\(x[0-9a-fA-F]{2}|.)', lambda e: chr(int(e.group(1)[1:], 16)) if len(e.group(1)) == 3 else {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), v)
    out.append(v.encode())
sys.stdout.write("\n".join(sorted(repr(x) for x in out)) + "\n")
PY
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$OUT/unit"
	{ printf '[Unit]\nDescription=clrtrace env test\n'; sed 's/^\[Service\]$/[Service]\nType=oneshot\nExecStart=\/bin\/true/' "$OUT/systemd.out"; } >"$OUT/unit/clrtrace-env-test.service"
	systemd-analyze verify "$OUT/unit/clrtrace-env-test.service" >"$OUT/verify.out" 2>&1
	grep -q 'clrtrace-env-test.service:[0-9]*:' "$OUT/verify.out" && fail "systemd-analyze verify: $(cat "$OUT/verify.out")" ||
		ok "systemd-analyze verify takes every line"
else
	echo "note: no systemd-analyze; the drop-in is checked by systemd's quoting rules only"
fi
cmp -s "$OUT/systemd.vars" "$OUT/default.vars" && ok "systemd: the unquoted values are the values" ||
	fail "systemd: $(diff "$OUT/default.vars" "$OUT/systemd.vars")"

# bad values
for bad in bogus Shell ""; do
	"$CLRTRACE" env --format "$bad" >"$OUT/bad.out" 2>"$OUT/bad.err"
	expect "--format '$bad': exit status 2" "$?" 2
	expect "--format '$bad': one line" "$(wc -l <"$OUT/bad.err" | tr -d ' ')" 1
	grep -q "env: --format '$bad': accepted: shell, systemd, docker, dotenv" "$OUT/bad.err" && ok "--format '$bad': says what is accepted" ||
		fail "--format '$bad': $(cat "$OUT/bad.err")"
	[ -s "$OUT/bad.out" ] && fail "--format '$bad': printed variables" || ok "--format '$bad': nothing on stdout"
done
"$CLRTRACE" env --format 2>"$OUT/bad.err"
expect "--format without a value: exit status 2" "$?" 2
"$CLRTRACE" env --format=dotenv >"$OUT/eq.out"
expect "--format=dotenv" "$?" 0
grep -q '^CORECLR_ENABLE_PROFILING=1$' "$OUT/eq.out" && ok "--format=VALUE works" || fail "--format=dotenv: $(cat "$OUT/eq.out")"
finish
