#!/bin/sh
# A trace renamed while the program runs (logrotate's default: rename,
# then maybe a new empty file under the old name): every record is in the
# renamed file, and `run`'s summary names it and counts its records (the
# profiler tells run, in its exit report, the path of the file it has open).
. "${top_srcdir:-.}/tests/lib.sh"
OUT=$(readlink -f "$OUT") FAILMARK=$(readlink -f "$FAILMARK")
dll=$(build_program Loss)

# rotate NAME [create]: run Loss's gate scenario into $OUT/NAME.jsonl,
# rename that to NAME.jsonl.1 while the program waits (create: and make a
# new empty NAME.jsonl, as logrotate's create does), then let it finish
rotate() {
	local t="$OUT/$1.jsonl"
	"$CLRTRACE" run -e +transitions -o "file:$t" -- dotnet "$dll" gate 100 "$OUT/$1.gate" 100 \
		>"$OUT/$1.stdout" 2>"$OUT/$1.stderr" &
	local rp=$!
	wait_gate "$1"
	mv "$t" "$t.1"
	[ "${2:-}" = create ] && : >"$t"
	touch "$OUT/$1.gate"
	wait $rp
}

rotate moved
expect "renamed: the program's status" "$?" 0
expect "renamed: every record in the renamed file, to runtime.shutdown" "$(tail -1 "$OUT/moved.jsonl.1" | jq -r .event)" \
	runtime.shutdown
check_trace "$OUT/moved.jsonl.1"
n=$(wc -l <"$OUT/moved.jsonl.1")
expect "renamed: the summary names the renamed file and counts its records" "$(grep '^clrtrace: [0-9]* records' "$OUT/moved.stderr")" \
	"clrtrace: $n records, 0 exceptions (0 unhandled), trace in $OUT/moved.jsonl.1"
grep -q "no trace file is left" "$OUT/moved.stderr" && fail "renamed: run says no trace file is left" ||
	ok "renamed: run does not say that no trace file is left"

# logrotate's create: the new empty file under the old name is listed too
rotate created create
expect "renamed and created again: the program's status" "$?" 0
n=$(wc -l <"$OUT/created.jsonl.1")
expect "renamed and created again: the summary counts the renamed file's records, lists both" \
	"$(grep '^clrtrace: ' "$OUT/created.stderr" | tail -3)" "clrtrace: $n records, 0 exceptions (0 unhandled), traces in 2 files:
clrtrace:   $OUT/created.jsonl
clrtrace:   $OUT/created.jsonl.1"

# not renamed: named once, under the name it was given
trace "$OUT/plain.jsonl" -- dotnet "$dll" burst 10
expect "not renamed: the summary names the file once" "$(grep -c "trace in $OUT/plain.jsonl$" "$OUT/plain.jsonl.stderr")" 1
finish
