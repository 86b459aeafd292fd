#!/bin/sh
# Bad configuration values and an unwritable output path leave the program
# running, each with its one stderr line; bad CLI options are refused.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)
eval "$("$CLRTRACE" env -o "file:$OUT/env-%p.jsonl")"

traces() { find "$OUT" -maxdepth 1 -name '*.jsonl' | wc -l; }
bad() { # VAR VALUE EXPECTED-LINE-FRAGMENT [WHAT THE LINE SHOWS AFTER VAR=]
	# in $OUT: a bad CLRTRACE_OUTPUT falls back to a file in the current directory
	before=$(traces)
	(cd "$OUT" && env "$1=$2" dotnet "$dll" status 5 >"$OUT/bad.out" 2>"$OUT/bad.err")
	st=$?
	shown=${4-"'$2'"}
	expect "$1=$shown: the program runs on (exit 5)" "$st" 5
	expect "$1=$shown: stdout unchanged" "$(cat "$OUT/bad.out")" "returning 5"
	n=$(grep -c '^clrtrace: ' "$OUT/bad.err")
	expect "$1=$shown: exactly one clrtrace line on stderr" "$n" 1
	expect "$1=$shown: and nothing else on stderr" "$(wc -l <"$OUT/bad.err")" 1
	grep -F "clrtrace: $1=$shown is invalid (" "$OUT/bad.err" | grep -qF "$3" && ok "$1: the line names the variable, the value and '$3'" ||
		fail "$1: unexpected stderr: $(cat "$OUT/bad.err")"
	expect "$1=$shown: traced all the same (one more trace file)" "$(traces)" $((before + 1))
}
bad CLRTRACE_EVENTS exceptons "accepted: a comma list of exceptions, frames, loader"
bad CLRTRACE_OUTPUT syslog:x "accepted: a comma list of file:PATH, journal, stderr"
bad CLRTRACE_EXCEPTIONS 'System.*:zero' "glob:N to keep at most N a second"
bad CLRTRACE_PROCESSES 'app:3' "accepted: a comma list of program-name globs"
bad CLRTRACE_MESSAGES maybe "accepted: 0 or 1"
bad CLRTRACE_IDENT 'two words' "no spaces"
# empty values and items, unclosed globs: refused, not taken as "all" or "nothing"
bad CLRTRACE_EVENTS '' "an empty value; accepted: a comma list of exceptions"
bad CLRTRACE_EVENTS 'exceptions,,gc' "an empty item in the list"
bad CLRTRACE_OUTPUT '' "an empty value; accepted: a comma list of file:PATH"
bad CLRTRACE_EXCEPTIONS '' "an empty value; accepted: a comma list of type globs"
bad CLRTRACE_EXCEPTIONS '[' "a '[' without its ']'"
bad CLRTRACE_PROCESSES '' "an empty value"
bad CLRTRACE_PROCESSES '[abc' "a '[' without its ']'"
bad CLRTRACE_FLUSH_MS '' "accepted: 0 to 60000 milliseconds"
bad CLRTRACE_JOURNAL_RATELIMIT '' "accepted: BURST/SECONDS"
# control characters never reach the terminal and never split the line
esc=$(printf '\033')
bad CLRTRACE_EVENTS "$(printf 'a\nb%s[2J\\' "$esc")" "accepted:" "'a\\nb\\x1B[2J\\\\'"
grep -q "$esc" "$OUT/bad.err" && fail "an escape character reached stderr" || ok "no escape character on stderr"
bad CLRTRACE_OUTPUT "$(printf 'file:/tmp/a\tb')" "a control character in a file path" "'file:/tmp/a\\tb'"
# a 100 KB value makes one short line that says how long it was
big=$(head -c 102400 /dev/zero | tr '\0' x)
bad CLRTRACE_EXCEPTIONS "$big[" "a '[' without its ']'" "'$(head -c 120 /dev/zero | tr '\0' x)…' (102401 bytes)"
len=$(wc -c <"$OUT/bad.err")
[ "$len" -lt 600 ] && ok "the 100 KB value's line is $len bytes" || fail "the 100 KB value made a $len-byte line"
ls "$OUT"/env-*.jsonl >/dev/null 2>&1 && ok "tracing went on with the defaults" || fail "no trace written after bad values"
ls "$OUT"/clrtrace-Probe-*.jsonl >/dev/null 2>&1 && ok "a bad CLRTRACE_OUTPUT falls back to clrtrace-%n-%p.jsonl" ||
	fail "no default trace after a bad CLRTRACE_OUTPUT"

# an unusable output path: one line, and the trace goes to the default file
mkdir -p "$OUT/nw" && rm -f "$OUT"/nw/*
(cd "$OUT/nw" && CLRTRACE_OUTPUT="file:/nonexistent/dir/t.jsonl" exec dotnet "$dll" status 4 >"$OUT/nw.out" 2>"$OUT/nw.err")
expect "unusable path: the program runs on (exit 4)" "$?" 4
expect "unusable path: stdout unchanged" "$(cat "$OUT/nw.out")" "returning 4"
expect "unusable path: one line on stderr" "$(wc -l <"$OUT/nw.err")" 1
fallback=$(ls "$OUT"/nw/clrtrace-Probe-*.jsonl 2>/dev/null)
grep -q "^clrtrace: cannot open trace file /nonexistent/dir/t.jsonl: No such file or directory; writing $fallback instead$" "$OUT/nw.err" &&
	ok "unusable path: says which file, why, and where the trace goes instead" || fail "unusable path: stderr was: $(cat "$OUT/nw.err")"
[ -n "$fallback" ] && check_trace "$fallback"
[ -n "$fallback" ] && expect "the fallback trace's runtime.init names the file it went to" \
	"$(jq -c 'select(.event == "runtime.init") | .config.output' "$fallback")" '["file:clrtrace-%n-%p.jsonl"]'
# clrtrace run looks before it starts the program: an unusable path is an
# error (exit 2, one line), and the program is not started (tests/cli-args.sh)
rm -f "$OUT"/nw/*.jsonl
(cd "$OUT/nw" && exec "$CLRTRACE" run -o file:/nonexistent/dir/t.jsonl -- dotnet "$dll" status 3 >"$OUT/nw.out" 2>"$OUT/nw.err")
expect "clrtrace run, unusable path: exit 2" "$?" 2
expect "clrtrace run, unusable path: the program not started" "$(cat "$OUT/nw.out"; ls "$OUT"/nw/)" ""
grep -q "^clrtrace: run: --output file:/nonexistent/dir/t.jsonl: its directory: No such file or directory; the program was not started$" "$OUT/nw.err" &&
	ok "clrtrace run, unusable path: says which file and why" || fail "clrtrace run, unusable path: stderr was: $(cat "$OUT/nw.err")"
expect "clrtrace run, unusable path: one line" "$(wc -l <"$OUT/nw.err")" 1

# the default file unusable as well (the working directory is gone): still
# one line, and the program runs on untraced
mkdir -p "$OUT/gone"
(cd "$OUT/gone" && rmdir "$OUT/gone" && CLRTRACE_OUTPUT="file:/nonexistent/dir/t.jsonl" exec dotnet "$dll" status 4 >"$OUT/nw.out" 2>"$OUT/nw.err")
expect "unusable path and default: exit 4" "$?" 4
expect "unusable path and default: stdout unchanged" "$(cat "$OUT/nw.out")" "returning 4"
# (only clrtrace's lines: a shell started there says it has no directory)
expect "unusable path and default: one line" "$(grep -c '^clrtrace: ' "$OUT/nw.err")" 1
grep -q "^clrtrace: cannot open trace file /nonexistent/dir/t.jsonl: No such file or directory; the default file failed too: cannot open trace file clrtrace-Probe-[0-9]*.jsonl: No such file or directory; not tracing$" "$OUT/nw.err" &&
	ok "unusable path and default: says both, and that nothing is traced" || fail "unusable path and default: stderr was: $(cat "$OUT/nw.err")"

# a symlink is not followed: not for the trace, not for CLRTRACE_EXC_RAWLOG
ln -sf "$OUT/target" "$OUT/link.jsonl"
ln -sf "$OUT/rawtarget" "$OUT/rawlink"
(cd "$OUT/nw" && CLRTRACE_OUTPUT="file:$OUT/link.jsonl" CLRTRACE_EXC_RAWLOG="$OUT/rawlink" exec dotnet "$dll" exitrace >/dev/null 2>"$OUT/ln.err")
expect "symlinks: the program runs on (exit 5)" "$?" 5
[ ! -e "$OUT/target" ] && ok "a symlinked trace path is not followed" || fail "the symlink was followed"
[ ! -e "$OUT/rawtarget" ] && ok "a symlinked CLRTRACE_EXC_RAWLOG is not followed" || fail "the rawlog symlink was followed"
grep -q "^clrtrace: cannot open trace file $OUT/link.jsonl: Too many levels of symbolic links; writing .* instead" "$OUT/ln.err" &&
	ok "and that is said" || fail "nothing said about the symlink: $(cat "$OUT/ln.err")"
grep -q "^clrtrace: cannot open CLRTRACE_EXC_RAWLOG file $OUT/rawlink: Too many levels of symbolic links; no raw log$" "$OUT/ln.err" &&
	ok "and that is said for the raw log" || fail "nothing said about the rawlog symlink: $(cat "$OUT/ln.err")"
expect "symlinks: two lines, one each" "$(wc -l <"$OUT/ln.err")" 2
rm -f "$OUT/rawlink" "$OUT"/nw/*.jsonl
CLRTRACE_OUTPUT="file:$OUT/raw-%p.jsonl" CLRTRACE_EXC_RAWLOG="$OUT/rawlog" dotnet "$dll" exitrace >/dev/null 2>&1
[ -s "$OUT/rawlog" ] && ok "a plain CLRTRACE_EXC_RAWLOG path is written" || fail "no raw log written"
expect "the raw log is created with mode 0644 minus the umask" "$(stat -c %a "$OUT/rawlog")" "$(printf '%o' $((0644 & ~$(umask))))"
rm -f "$OUT/rawlog" "$OUT/link.jsonl" "$OUT"/raw-*.jsonl

# an existing file is appended to
echo '{"existing":1}' >"$OUT/append.jsonl"
CLRTRACE_OUTPUT="file:$OUT/append.jsonl" dotnet "$dll" hello >/dev/null 2>&1
expect "an existing trace file is appended to" "$(head -1 "$OUT/append.jsonl")" '{"existing":1}'
rm -f "$OUT/append.jsonl" # not traces: keep them from tests/schema.sh
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
# clrtrace run traces a program whose name holds glob characters (its
# CLRTRACE_PROCESSES is that name, escaped)
mkdir -p "$OUT/ren" && cp "$dll" "$OUT/ren/Pro[b]e.dll" && cp "${dll%.dll}.runtimeconfig.json" "$OUT/ren/Pro[b]e.runtimeconfig.json"
"$CLRTRACE" run -o "file:$OUT/ren-%p.jsonl" -- dotnet "$OUT/ren/Pro[b]e.dll" status 3 >"$OUT/ren.out" 2>"$OUT/ren.err"
expect "clrtrace run -- dotnet 'Pro[b]e.dll': exit 3" "$?" 3
grep -q "^clrtrace: [0-9]* records, .*trace in $OUT/ren-[0-9]*.jsonl$" "$OUT/ren.err" &&
	expect "clrtrace run -- dotnet 'Pro[b]e.dll': traced, one line (the summary)" "$(wc -l <"$OUT/ren.err")" 1 ||
	fail "clrtrace run -- dotnet 'Pro[b]e.dll': not traced: $(cat "$OUT/ren.err")"
rm -rf "$OUT/ren"

# the CLI quotes a bad value the same way: escaped, cut, one line
"$CLRTRACE" run -e "$(printf 'x\033[2J\ny')$big" -- true >"$OUT/cli.out" 2>"$OUT/cli.err"
expect "clrtrace run -e <escape, newline, 100 KB>: exit 2" "$?" 2
expect "clrtrace run -e <escape, newline, 100 KB>: one line" "$(wc -l <"$OUT/cli.err")" 1
grep -q "$esc" "$OUT/cli.err" && fail "the CLI echoed an escape character" || ok "the CLI escapes the value"
len=$(wc -c <"$OUT/cli.err")
[ "$len" -lt 600 ] && ok "the CLI's line is $len bytes" || fail "the CLI made a $len-byte line"
finish
