#!/bin/sh
# Journal-only output that loses records says so: journald killed for the
# rest of the run, and journald frozen (SIGSTOP) through the program's exit
# (the queue fills: those drops count too).  The profiler's stderr line at
# the time and at exit and `clrtrace run`'s summary give the loss, and the
# records in the journal plus the loss are every record numbered.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/journald.sh"
[ "$journald_private" = 1 ] || skip "needs a private journald (unshare -m) to stop it"

journald_start
dll=$(build_program Loss)

# accounted NAME BASE IDENT [SLACK]: journal entries + the loss on stderr
# (BASE.stderr) = every record, but for at most SLACK records that a killed
# journald had already taken into its socket (sent, so no client can count
# them; contrib/journal.md)
accounted() {
	local name=$1 base=$2 ident=$3 slack=${4:-0} lost total summary journal unseen
	set -- $(sed -n 's/^clrtrace: \([0-9]*\) of \([0-9]*\) records could not be written to journal: .*/\1 \2/p' "$OUT/$base.stderr")
	lost=${1:-0} total=${2:-0}
	summary=$(sed -n 's/^clrtrace: trace sent to the journal.*; \([0-9]*\) records lost: .*/\1/p' "$OUT/$base.stderr")
	journald_sync
	journal=$(jctl -o json -t "$ident" | wc -l)
	echo "$name: $total records numbered, $journal in the journal, $lost counted lost; stderr:"
	sed 's/^/  /' "$OUT/$base.stderr"
	unseen=$((total - journal - lost))
	[ "$lost" -gt 0 ] && [ "$unseen" -ge 0 ] && [ "$unseen" -le "$slack" ] &&
		ok "$name: journal + lost = every record ($journal + $lost + $unseen taken by a killed journald = $total)" ||
		fail "$name: journal $journal + lost $lost != $total"
	expect "$name: the summary gives the same loss" "$summary" "$lost"
}

export CLRTRACE_JOURNAL_RATELIMIT=0 # no client-side limit: the loss is journald's

# 1. journald killed while the program waits, for the rest of the run
"$CLRTRACE" run -o journal --ident ll-kill-$$ -e +transitions -- dotnet "$dll" gate 500 "$OUT/kill.go" 1000 \
	>"$OUT/kill.stdout" 2>"$OUT/kill.stderr" &
prog=$!
wait_gate kill
journald_sync
journald_stop TERM
touch "$OUT/kill.go"
wait $prog
expect "journald killed: program exit status and output" "$? $(tail -n 1 "$OUT/kill.stdout")" "0 calls 1500"
expect "journald killed: said once at the time" \
	"$(grep -c '^clrtrace: records for journal are being lost: journald not reachable' "$OUT/kill.stderr")" 1
journald_start
accounted "journald killed" kill ll-kill-$$ 16

# 2. journald frozen through the exit: the queue fills, the rest waits
"$CLRTRACE" run -o journal --ident ll-stop-$$ -e +transitions -- dotnet "$dll" gate 200 "$OUT/stop.go" 3000 \
	>"$OUT/stop.stdout" 2>"$OUT/stop.stderr" &
prog=$!
wait_gate stop
journald_sync
kill -STOP "$JOURNALD_PID"
touch "$OUT/stop.go"
wait $prog
st=$?
kill -CONT "$JOURNALD_PID"
expect "journald frozen: program exit status and output" "$st $(tail -n 1 "$OUT/stop.stdout")" "0 calls 3200"
grep -q '^clrtrace: records for journal are being lost: journal queue full' "$OUT/stop.stderr" &&
	ok "journald frozen: the queue-full drops are said at the time" || fail "journald frozen: no line for the full queue"
accounted "journald frozen" stop ll-stop-$$

finish
