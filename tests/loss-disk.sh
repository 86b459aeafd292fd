#!/bin/sh
# Loss on a trace file's disk is counted exactly and said: a small tmpfs
# that fills up (and is freed again), the trace directory removed mid-run,
# and made read-only.  Every line of what is left parses, the count equals
# the real gap in seq, and stderr and `clrtrace run`'s summary say it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
if [ "${CLRTRACE_LOSS_PRIVATE:-0}" != 1 ]; then
	unshare -m --propagation private true 2>/dev/null || skip "needs unshare -m for a private tmpfs"
	CLRTRACE_LOSS_PRIVATE=1 exec unshare -m --propagation private "${BASH:-/bin/sh}" "$0" "$@"
fi
dll=$(build_program Loss)
MNT="$OUT/mnt"
mkdir -p "$MNT"

# run_traced NAME TRACE ARGS...: clrtrace run (transitions on) in the
# background; the program's output outside the small disk
run_traced() {
	local name=$1 trace=$2; shift 2
	timeout -k 10 300 "$CLRTRACE" run -o "file:$trace" -e +transitions -- dotnet "$dll" "$@" \
		>"$OUT/$name.stdout" 2>"$OUT/$name.stderr" &
	prog=$!
}

# lines_ok NAME FILE: every line of FILE is a JSON record, the last ends
lines_ok() {
	local bad
	bad=$(jq -R 'fromjson? // "BAD" | select(. == "BAD")' "$2" | wc -l)
	[ "$bad" = 0 ] && [ "$(tail -c 1 "$2" | od -An -c | tr -d ' ')" = '\n' ] &&
		ok "$1: every line of the trace parses, no torn line" || fail "$1: $bad unparseable lines or a torn end"
}

# gaps_explained NAME FILE: the record right after every gap in seq is the
# trace.dropped that explains it, and `clrtrace check` finds every gap
# covered (a loss up to the end is said on stderr instead)
gaps_explained() {
	local bad
	bad=$(jq -s -c 'sort_by(.seq) | . as $r | [range(1; length) | select($r[.].seq > $r[. - 1].seq + 1 and $r[.].event != "trace.dropped") | $r[.].seq]' "$2")
	expect "$1: every gap in seq is followed at once by its trace.dropped" "$bad" "[]"
	"$CLRTRACE" check -q -m 3 "$2" >"$OUT/check.out" 2>&1 && ok "$1: clrtrace check finds every gap explained" ||
		fail "$1: clrtrace check: $(tr '\n' ' ' <"$OUT/check.out")"
}

# exit_line NAME: "L M" from the profiler's exit line "L of M records could not be written"
exit_line() {
	sed -n 's/^clrtrace: \([0-9]*\) of \([0-9]*\) records could not be written to .*/\1 \2/p' "$OUT/$1.stderr"
}

# summary_lost NAME: L from the summary's "; L records lost: REASON"
summary_lost() {
	sed -n 's/^clrtrace: .*; \([0-9]*\) records lost: .*/\1/p' "$OUT/$1.stderr"
}

# 1. a 2 MB tmpfs, about 180,000 records: the disk stays full to the end
mount -t tmpfs -o size=2m tmpfs "$MNT" || die "cannot mount a tmpfs"
run_traced full "$MNT/full.jsonl" burst 90000
wait $prog
expect "disk full: program exit status and output" "$? $(tail -n 1 "$OUT/full.stdout")" "0 calls 90000"
set -- $(exit_line full)
lost=${1:-none} total=${2:-0}
written=$(wc -l <"$MNT/full.jsonl")
echo "disk full: $written records written, $lost lost of $total; stderr:"
sed 's/^/  /' "$OUT/full.stderr"
lines_ok "disk full" "$MNT/full.jsonl"
[ "$lost" != none ] && [ "$lost" -gt 100000 ] && [ $((written + lost)) = "$total" ] &&
	ok "disk full: written + lost = every record numbered ($written + $lost = $total)" ||
	fail "disk full: written $written, lost $lost, numbered $total"
expect "disk full: the written records start at seq 1" "$(head -1 "$MNT/full.jsonl" | jq .seq)" 1
gaps_explained "disk full" "$MNT/full.jsonl"
expect "disk full: said once at the time" \
	"$(grep -c 'records for .*full.jsonl are being lost: disk full' "$OUT/full.stderr")" 1
expect "disk full: the summary counts the same loss" "$(summary_lost full)" "$lost"
rm -f "$MNT/full.jsonl"

# 1b. the same, and the program dies of an unhandled exception: no
# Shutdown, no atexit; the loss is said all the same
run_traced unhandled "$MNT/unhandled.jsonl" burst-unhandled 90000
wait $prog
expect "unhandled: program exit status and output" "$? $(head -n 1 "$OUT/unhandled.stdout")" "134 calls 90000"
set -- $(exit_line unhandled)
lost=${1:-none} total=${2:-0}
written=$(jq -R 'fromjson? | .seq' "$MNT/unhandled.jsonl" | wc -l)
echo "unhandled: $written records written, $lost lost of $total"
lines_ok "unhandled" "$MNT/unhandled.jsonl"
gaps_explained "unhandled" "$MNT/unhandled.jsonl"
# every record up to the last one written is in the file or counted by a
# trace.dropped before it; the exit line, said as the process dies, counts
# no more than those and the records numbered after the last one written
# (it may be said before or after the last losses, as the threads run)
last=$(jq -R 'fromjson? | .seq' "$MNT/unhandled.jsonl" | sort -n | tail -1)
drops=$(jq -R 'fromjson? | select(.event == "trace.dropped") | .count' "$MNT/unhandled.jsonl" | awk '{n += $1} END {print n + 0}')
[ "$lost" != none ] && [ "$lost" -gt 100000 ] && [ $((written + drops)) = "$last" ] && [ "$lost" -le $((drops + (total > last ? total - last : 0))) ] &&
	ok "unhandled: the loss is said at death ($lost of $total; $written written up to seq $last, $drops dropped)" ||
	fail "unhandled: written $written, dropped $drops, last written seq $last; exit line: lost $lost of $total"
expect "unhandled: the summary counts the same loss" "$(summary_lost unhandled)" "$lost"
umount "$MNT"

# 1c. twenty processes append to one file on the full disk: no line is
# torn or glued to another's record, every gap of each process is
# explained by its trace.dropped, and for each process the records in the
# file and those its exit line counts lost are every record it numbered
mount -t tmpfs -o size=2m tmpfs "$MNT" || die "cannot mount a tmpfs"
pids=""
for i in $(seq 20); do
	run_traced "many$i" "$MNT/many.jsonl" burst 5000
	pids="$pids $prog"
done
st=0
for p in $pids; do wait "$p" || st=$?; done
expect "20 writers: every program exited 0" "$st" 0
lines_ok "20 writers" "$MNT/many.jsonl"
"$CLRTRACE" check -q -m 3 "$MNT/many.jsonl" >"$OUT/many.check" 2>&1 && ok "20 writers: clrtrace check finds every gap explained" ||
	fail "20 writers: clrtrace check: $(tr '\n' ' ' <"$OUT/many.check")"
# per process: records in the file + its loss = the records it numbered
acct=$(jq -s -c 'group_by(.pid) | map({pid: .[0].pid, n: length, last: (map(.seq) | max),
	dropped: (map(select(.event == "trace.dropped") | .count) | add // 0)})
	| map(select(.n + .dropped != .last)) | map(.pid)' "$MNT/many.jsonl")
expect "20 writers: for each process, records in the file + its trace.dropped counts = its last seq" "$acct" "[]"
# and over all: the exit lines' losses are the gaps the trace.dropped
# records explain and the records after each process's last one
sum_lost=0 sum_total=0
for i in $(seq 20); do
	set -- $(exit_line "many$i")
	sum_lost=$((sum_lost + ${1:-0})) sum_total=$((sum_total + ${2:-0}))
done
expect "20 writers: the 20 exit lines' losses = the trace.dropped counts + what came after each process's last record" \
	"$(jq -s --argjson total "$sum_total" '([.[] | select(.event == "trace.dropped") | .count] | add // 0)
	  + $total - (group_by(.pid) | map(map(.seq) | max) | add)' "$MNT/many.jsonl")" "$sum_lost"
expect "20 writers: 20 processes in the file" "$(jq -s '[.[].pid] | unique | length' "$MNT/many.jsonl")" 20
umount "$MNT"

# 2. the same disk, freed while the program waits: the loss is reported
# in the trace itself, equal to the gap in seq
mount -t tmpfs -o size=2m tmpfs "$MNT" || die "cannot mount a tmpfs"
head -c 1M /dev/zero >"$MNT/filler"
run_traced freed "$MNT/freed.jsonl" gate 30000 "$OUT/freed.go" 1000
wait_gate freed
rm "$MNT/filler"
touch "$OUT/freed.go"
wait $prog
expect "disk freed: program exit status and output" "$? $(tail -n 1 "$OUT/freed.stdout")" "0 calls 31000"
lines_ok "disk freed" "$MNT/freed.jsonl"
gap=$(jq -s '[.[].seq] | sort | . as $s | [range(1; length) | $s[.] - $s[. - 1] - 1] | add + ($s[0] - 1)' "$MNT/freed.jsonl")
reported=$(jq -s '[.[] | select(.event == "trace.dropped") | .count] | add // 0' "$MNT/freed.jsonl")
shutdown=$(jq -c 'select(.event == "runtime.shutdown") | [.seq, .totals.records, .totals.dropped]' "$MNT/freed.jsonl")
last=$(jq -s 'map(.seq) | max' "$MNT/freed.jsonl")
echo "disk freed: $(wc -l <"$MNT/freed.jsonl") records written, seq gap $gap, trace.dropped $reported, runtime.shutdown [seq,records,dropped] $shutdown"
[ "$gap" -gt 0 ] && [ "$reported" = "$gap" ] && ok "disk freed: trace.dropped counts exactly the seq gap ($gap)" ||
	fail "disk freed: gap $gap, trace.dropped $reported"
expect "disk freed: runtime.shutdown is last, its totals final" "$shutdown" "[$last,$last,$gap]"
expect "disk freed: the exit line and the summary say the same" "$(exit_line freed) $(summary_lost freed)" "$gap $last $gap"
expect "disk freed: the summary's reason" "$(sed -n 's/.* records lost: //p' "$OUT/freed.stderr")" "disk full"
umount "$MNT"

# 3. the trace directory removed mid-run: nothing can be written any more
mount -t tmpfs -o size=64m tmpfs "$MNT" || die "cannot mount a tmpfs"
mkdir "$MNT/sub"
run_traced removed "$MNT/sub/removed.jsonl" gate 2000 "$OUT/removed.go" 2000
wait_gate removed
rm -rf "$MNT/sub"
touch "$OUT/removed.go"
wait $prog
expect "directory removed: program exit status and output" "$? $(tail -n 1 "$OUT/removed.stdout")" "0 calls 4000"
set -- $(exit_line removed)
echo "directory removed: stderr:"
sed 's/^/  /' "$OUT/removed.stderr"
[ "${1:-0}" -gt 8000 ] && [ "$1" = "${2:-}" ] && ok "directory removed: every record counted lost ($1 of $2)" ||
	fail "directory removed: exit line '$*'"
expect "directory removed: the summary" "$(sed -n 's/^clrtrace: no trace file is left; \([0-9]*\) records lost: trace file removed.*/\1/p' "$OUT/removed.stderr")" "${1:-}"
grep -q "being lost: trace file removed, cannot create it again: No such file or directory" "$OUT/removed.stderr" &&
	ok "directory removed: said at the time, with the reason" || fail "directory removed: no line at the time"

# 4. the directory made read-only mid-run, for a program that is not root:
# the open file keeps taking records (nothing lost); removed as well, the
# file cannot be made again and everything after is counted
mkdir "$MNT/ro" "$MNT/home"
chown nobody "$MNT/ro" "$MNT/home"
for what in kept removed; do
	HOME="$MNT/home" DOTNET_CLI_HOME="$MNT/home" timeout -k 10 300 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$CLRTRACE" run -o "file:$MNT/ro/$what.jsonl" -e +transitions -- dotnet "$dll" gate 2000 "$OUT/ro-$what.go" 2000 \
		>"$OUT/ro-$what.stdout" 2>"$OUT/ro-$what.stderr" &
	prog=$!
	wait_gate "ro-$what"
	chmod 555 "$MNT/ro"
	[ "$what" = removed ] && rm "$MNT/ro/$what.jsonl"
	touch "$OUT/ro-$what.go"
	wait $prog
	expect "read-only directory ($what): program exit status and output" "$? $(tail -n 1 "$OUT/ro-$what.stdout")" "0 calls 4000"
	chmod 755 "$MNT/ro"
done
check_trace "$MNT/ro/kept.jsonl"
expect "read-only directory, file kept: nothing lost, nothing said" "$(grep -c 'lost' "$OUT/ro-kept.stderr")" 0
set -- $(exit_line ro-removed)
[ "${1:-0}" -gt 8000 ] && [ "$1" = "${2:-}" ] && ok "read-only directory, file removed: every record counted lost ($1 of $2)" ||
	fail "read-only directory, file removed: exit line '$*'"
grep -q "being lost: trace file removed, cannot create it again: Permission denied" "$OUT/ro-removed.stderr" &&
	ok "read-only directory, file removed: said at the time, with the reason" ||
	fail "read-only directory, file removed: $(cat "$OUT/ro-removed.stderr")"
expect "read-only directory, file removed: the summary" \
	"$(sed -n 's/^clrtrace: no trace file is left; \([0-9]*\) records lost: .*Permission denied$/\1/p' "$OUT/ro-removed.stderr")" "${1:-}"
umount "$MNT"

finish
