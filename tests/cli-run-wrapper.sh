#!/bin/sh
# clrtrace run -- SCRIPT: a wrapper script that execs a .NET program, one that
# runs it as a child and waits, and one that starts two different .NET
# programs.  run traces every .NET process started under it (the SDK's own
# left out) unless -p narrows it, names each trace file after its own
# program, lists every trace file in the summary, and the script's output
# and exit status are those of an untraced run.
. "${top_srcdir:-.}/tests/lib.sh"
probe=$(build_program Probe)
sample=$(build_program Sample)

mkdir -p "$OUT/scripts"
cat >"$OUT/scripts/exec.sh" <<EOF
#!/bin/sh
echo "script: starting"
exec dotnet "$sample"
EOF
cat >"$OUT/scripts/child.sh" <<EOF
#!/bin/sh
dotnet "$probe" status 7
echo "script: the program exited \$?"
exit 5
EOF
cat >"$OUT/scripts/two.sh" <<EOF
#!/bin/sh
dotnet "$probe" hello || exit 9
dotnet "$sample"
EOF
cat >"$OUT/scripts/failfast.sh" <<EOF
#!/bin/sh
dotnet "$probe" failfast 2>/dev/null
echo "script: the program exited \$?"
EOF
chmod +x "$OUT/scripts"/*.sh

# names PREFIX: the program names of the trace files $OUT/PREFIX-*.jsonl, sorted
names() { ls "$OUT"/"$1"-*.jsonl 2>/dev/null | sed -e "s|^$OUT/$1-||" -e 's/-[0-9]*\.jsonl$//' | sort | tr '\n' ' '; }

# compare NAME SCRIPT [run options]: the traced script as the untraced one
compare() {
	name=$1 script=$2
	shift 2
	"$script" >"$OUT/$name.plain.out" 2>"$OUT/$name.plain.err"
	plain=$?
	rm -f "$OUT/$name"-*.jsonl
	timeout -k 10 600 "$CLRTRACE" run -o "file:$OUT/$name-%n-%p.jsonl" "$@" -- "$script" \
		>"$OUT/$name.traced.out" 2>"$OUT/$name.traced.err"
	traced=$?
	expect "$name: same exit status ($plain)" "$traced" "$plain"
	cmp -s "$OUT/$name.plain.out" "$OUT/$name.traced.out" && ok "$name: same stdout" ||
		fail "$name: stdout differs: $(diff "$OUT/$name.plain.out" "$OUT/$name.traced.out" | head -5)"
	grep -v '^clrtrace: ' "$OUT/$name.traced.err" | cmp -s "$OUT/$name.plain.err" - && ok "$name: same stderr apart from clrtrace's summary" ||
		fail "$name: stderr differs: $(diff "$OUT/$name.plain.err" "$OUT/$name.traced.err" | head -5)"
	for f in "$OUT/$name"-*.jsonl; do
		[ -f "$f" ] || continue
		check_trace "$f"
		grep -qF "clrtrace:   $f" "$OUT/$name.traced.err" || grep -qF "trace in $f" "$OUT/$name.traced.err" &&
			ok "$name: the summary names ${f##*/}" || fail "$name: the summary does not name $f: $(cat "$OUT/$name.traced.err")"
	done
}

compare exec "$OUT/scripts/exec.sh"
expect "exec: one trace, named after the program" "$(names exec)" "Sample "
grep -q '"event":"exception\.' "$OUT"/exec-Sample-*.jsonl && ok "exec: the program's exceptions are in it" ||
	fail "exec: no exception records"

compare child "$OUT/scripts/child.sh"
expect "child: one trace, named after the program" "$(names child)" "Probe "

compare two "$OUT/scripts/two.sh"
expect "two programs: a trace each, named after each" "$(names two)" "Probe Sample "
grep -q "^clrtrace: [0-9]* records, .*traces in 2 files" "$OUT/two.traced.err" && ok "two programs: the summary counts both files" ||
	fail "two programs: summary: $(cat "$OUT/two.traced.err")"

# -p narrows it: only that program, and the summary names its file
compare narrow "$OUT/scripts/two.sh" -p Probe
expect "-p Probe: the trace of Probe only" "$(names narrow)" "Probe "
grep -q "^clrtrace: [0-9]* records, .*trace in $OUT/narrow-Probe-[0-9]*\.jsonl$" "$OUT/narrow.traced.err" &&
	ok "-p Probe: the summary says where the trace is" || fail "-p Probe: summary: $(cat "$OUT/narrow.traced.err")"

# -p that matches none of them: no trace, and the summary names the programs it left out
"$CLRTRACE" run -o "file:$OUT/nomatch-%n-%p.jsonl" -p Nothing -- "$OUT/scripts/two.sh" >/dev/null 2>"$OUT/nomatch.err"
expect "-p Nothing: the script's status" "$?" 0
expect "-p Nothing: the line names the programs left out" "$(grep "^clrtrace: " "$OUT/nomatch.err")" \
	"clrtrace: no trace: the program filter (-p) left out 2 processes (Probe, Sample)"

# a child that dies before it can report (FailFast): its file is found by the .pending file it
# left, merged, and named in the summary
compare failfast "$OUT/scripts/failfast.sh"
expect "failfast: one trace, named after the program" "$(names failfast)" "Probe "
ls "$OUT"/failfast-Probe-*.jsonl.*.pending >/dev/null 2>&1 && fail "failfast: the .pending file was not merged" ||
	ok "failfast: the .pending file was merged"

# the default file name (clrtrace-%n-%p.jsonl in the working directory)
mkdir -p "$OUT/cwd" && rm -f "$OUT/cwd"/*.jsonl
(cd "$OUT/cwd" && timeout -k 10 600 "$CLRTRACE" run -- "$OUT/scripts/two.sh" >/dev/null 2>"$OUT/cwd.err")
expect "default file: the script's status" "$?" 0
expect "default file: a file per program" "$(cd "$OUT/cwd" && ls | sed 's/-[0-9]*\.jsonl$//' | tr '\n' ' ')" "clrtrace-Probe clrtrace-Sample "
expect "default file: the summary lists both" "$(grep -c "^clrtrace:   $OUT/cwd/clrtrace-" "$OUT/cwd.err")" 2

# a program that is not .NET: no trace, and the summary says so
"$CLRTRACE" run -o "file:$OUT/none-%n-%p.jsonl" -- sh -c 'exit 0' 2>"$OUT/none.err"
expect "not .NET: status 0" "$?" 0
grep -q "no trace file was written" "$OUT/none.err" && ok "not .NET: said plainly" || fail "not .NET: $(cat "$OUT/none.err")"

# a file whose path holds the word journal is a file, not the journal
mkdir -p "$OUT/journal"
"$CLRTRACE" run -o "file:$OUT/journal/t.jsonl" -- dotnet "$probe" hello >/dev/null 2>"$OUT/jpath.err"
expect "a path with 'journal' in it: status 0" "$?" 0
expect "a path with 'journal' in it: run speaks of the file only" "$(grep -c journal "$OUT/jpath.err" | tr -d ' ')" \
	"$(grep -c "$OUT/journal/t.jsonl" "$OUT/jpath.err" | tr -d ' ')"
finish
