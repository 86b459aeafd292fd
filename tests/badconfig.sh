#!/bin/sh
# Bad configuration values and an unwritable output path leave the program
# running, each with its one stderr line; bad CLI options are refused.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)
eval "$("$CLRTRACE" env -o "file:$OUT/env-%p.jsonl")"

bad() { # VAR VALUE EXPECTED-LINE-FRAGMENT
	# in $OUT: a bad CLRTRACE_OUTPUT falls back to a file in the current directory
	(cd "$OUT" && env "$1=$2" dotnet "$dll" status 5 >"$OUT/bad.out" 2>"$OUT/bad.err")
	st=$?
	expect "$1='$2': the program runs on (exit 5)" "$st" 5
	expect "$1='$2': stdout unchanged" "$(cat "$OUT/bad.out")" "returning 5"
	n=$(grep -c '^clrtrace: ' "$OUT/bad.err")
	expect "$1='$2': exactly one clrtrace line on stderr" "$n" 1
	grep -F "clrtrace: $1='$2' is invalid (" "$OUT/bad.err" | grep -qF "$3" && ok "$1: the line names the variable, the value and '$3'" ||
		fail "$1: unexpected stderr: $(cat "$OUT/bad.err")"
}
bad CLRTRACE_EVENTS exceptons "accepted: a comma list of exceptions, frames, loader"
bad CLRTRACE_OUTPUT syslog:x "accepted: a comma list of file:PATH, journal, stderr"
bad CLRTRACE_EXCEPTIONS 'System.*:zero' "glob:N to keep at most N a second"
bad CLRTRACE_PROCESSES 'app:3' "accepted: a comma list of program-name globs"
bad CLRTRACE_MESSAGES maybe "accepted: 0 or 1"
bad CLRTRACE_IDENT 'two words' "no spaces"
ls "$OUT"/env-*.jsonl >/dev/null 2>&1 && ok "tracing went on with the defaults" || fail "no trace written after bad values"
ls "$OUT"/clrtrace-Probe-*.jsonl >/dev/null 2>&1 && ok "a bad CLRTRACE_OUTPUT falls back to clrtrace-%n-%p.jsonl" ||
	fail "no default trace after a bad CLRTRACE_OUTPUT"

# an unwritable output path: one line, the program runs untraced
CLRTRACE_OUTPUT="file:/nonexistent/dir/t.jsonl" dotnet "$dll" status 4 >"$OUT/nw.out" 2>"$OUT/nw.err"
expect "unwritable path: the program runs on (exit 4)" "$?" 4
expect "unwritable path: stdout unchanged" "$(cat "$OUT/nw.out")" "returning 4"
grep -q "^clrtrace: cannot open trace file /nonexistent/dir/t.jsonl: No such file or directory; no trace goes there$" "$OUT/nw.err" &&
	ok "unwritable path: says which file and why" || fail "unwritable path: stderr was: $(cat "$OUT/nw.err")"

# a symlink is not followed
ln -sf "$OUT/target" "$OUT/link.jsonl"
CLRTRACE_OUTPUT="file:$OUT/link.jsonl" dotnet "$dll" hello >/dev/null 2>"$OUT/ln.err"
[ ! -e "$OUT/target" ] && ok "a symlinked trace path is not followed" || fail "the symlink was followed"
grep -q "cannot open trace file" "$OUT/ln.err" && ok "and that is said" || fail "nothing said about the symlink"

# an existing file is appended to
echo '{"existing":1}' >"$OUT/append.jsonl"
CLRTRACE_OUTPUT="file:$OUT/append.jsonl" dotnet "$dll" hello >/dev/null 2>&1
expect "an existing trace file is appended to" "$(head -1 "$OUT/append.jsonl")" '{"existing":1}'
rm -f "$OUT/append.jsonl" "$OUT/link.jsonl" # not traces: keep them from tests/schema.sh
expect "created with mode 0644 minus the umask" "$(umask 022; CLRTRACE_OUTPUT="file:$OUT/mode.jsonl" dotnet "$dll" hello >/dev/null 2>&1; stat -c %a "$OUT/mode.jsonl")" 644

# CLRTRACE_PROCESSES leaves other programs untraced
CLRTRACE_OUTPUT="file:$OUT/excluded.jsonl" CLRTRACE_PROCESSES='!Probe' dotnet "$dll" hello >/dev/null 2>&1
[ ! -e "$OUT/excluded.jsonl" ] && ok "an excluded program is not traced" || fail "excluded program traced"

# bad command-line options: exit 2, one line
for args in "run --events bogus -- true" "run --frobnicate -- true" "run" "env --output nope" "frob"; do
	# shellcheck disable=SC2086
	"$CLRTRACE" $args >"$OUT/cli.out" 2>"$OUT/cli.err"
	st=$?
	expect "clrtrace $args: exit 2" "$st" 2
	expect "clrtrace $args: one line on stderr" "$(grep -c '^clrtrace: ' "$OUT/cli.err")" 1
done
finish
