#!/bin/sh
# The journal sink's client-side rate limit never drops the verdict of an
# unhandled exception nor runtime.shutdown: it keeps room for them at the
# end of each priority pool's burst.  Against a real systemd-journald, with
# a burst far below what the program writes (--journal-ratelimit 100/600).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/journald.sh"

journald_start
dll=$(build_program Sampling)

# 1. 3300 errors caught, then a normal exit: runtime.shutdown arrives
ID="clrtrace-reserve-$$"
"$CLRTRACE" run -o journal --ident "$ID" --journal-ratelimit 100/600 -- dotnet "$dll" storm 1500 \
	>"$OUT/exit.stdout" 2>"$OUT/exit.stderr" || fail "exit: status $?"
journald_sync
jctl -o json --all -t "$ID" >"$OUT/exit.journal.json"
grep -q 'records lost: .*over the journal rate limit' "$OUT/exit.stderr" && ok "exit: the rate limit dropped records" ||
	fail "exit: nothing over the rate limit: $(cat "$OUT/exit.stderr")"
# runtime.shutdown's pool (priorities 5 and 6, with exception.error) was
# full long before the end: no more than the burst, most errors left out
pool=$(jq -r 'select(.PRIORITY == "5" or .PRIORITY == "6") | .CLRTRACE_EVENT' "$OUT/exit.journal.json" | wc -l)
errors=$(jq -r 'select(.CLRTRACE_EVENT == "exception.error") | .CLRTRACE_EVENT' "$OUT/exit.journal.json" | wc -l)
[ "$pool" -le 100 ] && [ "$pool" -ge 50 ] && [ "$errors" -lt 3300 ] &&
	ok "exit: the pool was full ($pool entries, $errors of 3300 exception.error)" || fail "exit: pool $pool, $errors exception.error"
expect "exit: runtime.shutdown is in the journal" \
	"$(jq -r 'select(.CLRTRACE_EVENT == "runtime.shutdown") | .CLRTRACE_EVENT' "$OUT/exit.journal.json")" runtime.shutdown

# 2. the same, then an unhandled exception: its verdict arrives
ID="clrtrace-reserve-u-$$"
"$CLRTRACE" run -o journal --ident "$ID" --journal-ratelimit 100/600 -- dotnet "$dll" unhandled 1500 \
	>"$OUT/unhandled.stdout" 2>"$OUT/unhandled.stderr"
st=$?
[ "$st" != 0 ] && grep -q '^done' "$OUT/unhandled.stdout" && ok "unhandled: the program died of it ($st)" ||
	fail "unhandled: status $st"
journald_sync
jctl -o json --all -t "$ID" >"$OUT/unhandled.journal.json"
expect "unhandled: its exception.unhandled and exception.error are in the journal" \
	"$(jq -r 'select(.CLRTRACE_EXCEPTION_MESSAGE == "invalid -1" and (.CLRTRACE_EVENT == "exception.unhandled" or .CLRTRACE_EVENT == "exception.error")) | .CLRTRACE_EVENT' "$OUT/unhandled.journal.json" | sort | tr '\n' ' ')" \
	"exception.error exception.unhandled "
expect "unhandled: the error's fate" \
	"$(jq -r 'select(.CLRTRACE_EXCEPTION_MESSAGE == "invalid -1" and .CLRTRACE_EVENT == "exception.error") | .CLRTRACE_FATE' "$OUT/unhandled.journal.json")" unhandled

# 3. a journal trace with errors left out by the budget: run's summary has
# no file to count them in, the profiler's own count says them, and it is
# the sum of the trace.left_out entries in the journal
ID="clrtrace-reserve-b-$$"
"$CLRTRACE" run -o journal --ident "$ID" --budget 1/3600 -- dotnet "$dll" storm 1000 \
	>"$OUT/budget.stdout" 2>"$OUT/budget.stderr" || fail "budget: status $?"
journald_sync
jctl -o json --all -t "$ID" >"$OUT/budget.journal.json"
sum=$(jq -s '[.[] | select(.CLRTRACE_EVENT == "trace.left_out") | .CLRTRACE_COUNT | tonumber] | add' "$OUT/budget.journal.json")
[ "$sum" -ge 2000 ] 2>/dev/null && grep -q "^clrtrace: $sum more errors left out, not written" "$OUT/budget.stderr" &&
	ok "budget: run's summary says the $sum errors left out" || fail "budget: journal says $sum; $(cat "$OUT/budget.stderr")"
finish
