#!/bin/sh
# The journal sink never stalls the program: journald killed mid-run,
# killed and restarted, frozen (SIGSTOP), and a burst above the rate limit.
# Each time the program finishes normally and on time, and every record
# missing from the journal is counted (trace.dropped, runtime.shutdown).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/journald.sh"
[ "$journald_private" = 1 ] || skip "needs a private journald (unshare -m) to stop it"

journald_start
dll=$(build_program Journal)

# elapsed_ms CMD...: run CMD, print its wall time in ms on fd 3
now_ms() { date +%s%3N; }

# accounted NAME FILE [SLACK]: every seq of FILE missing from the journal is
# counted.  Missing = reported in trace.dropped (sink journal), plus at most
# the trace.dropped records emitted at close that were themselves lost, plus
# SLACK: entries the kernel had accepted into the socket of a journald that
# was then killed (sendmsg succeeded; no client can know they were lost).
accounted() {
	local name=$1 f=$2 slack=${3:-0} pid missing reported lost_reports shutdown_dropped
	pid=$(jq -r 'select(.event=="runtime.init") | .pid' "$f")
	jctl -o json CLRTRACE_PID="$pid" | jq -r .CLRTRACE_SEQ | LC_ALL=C sort >"$f.jseq"
	jq -r .seq "$f" | LC_ALL=C sort >"$f.fseq"
	missing=$(comm -23 "$f.fseq" "$f.jseq" | wc -l)
	reported=$(jq -s '[.[] | select(.event=="trace.dropped" and .sink=="journal") | .count] | add // 0' "$f")
	lost_reports=$(jq -r 'select(.event=="trace.dropped" and .sink=="journal") | .seq' "$f" | LC_ALL=C sort |
		comm -23 - "$f.jseq" | wc -l)
	shutdown_dropped=$(jq -r 'select(.event=="runtime.shutdown") | .totals.dropped' "$f")
	echo "$name: $(wc -l <"$f") records, $(wc -l <"$f.jseq") in the journal, $missing missing, $reported reported in trace.dropped, runtime.shutdown says $shutdown_dropped"
	if [ "$missing" -gt 0 ] && [ "$reported" -le "$missing" ] && [ $((missing - reported)) -le $((lost_reports + slack)) ]; then
		ok "$name: every missing record is counted"
	else
		fail "$name: $missing missing, $reported reported, $lost_reports reports lost"
	fi
	[ "$shutdown_dropped" -gt 0 ] && ok "$name: runtime.shutdown counts drops" ||
		fail "$name: runtime.shutdown dropped = $shutdown_dropped"
}

# baseline: the same program traced to a file only
t0=$(now_ms)
"$CLRTRACE" run -o "file:$OUT/base.jsonl" -- dotnet "$dll" threads 60 >"$OUT/base.stdout" 2>/dev/null
base=$(( $(now_ms) - t0 ))
echo "baseline (file only): ${base} ms"

# 1. journald killed mid-run (stale socket: ECONNREFUSED)
t0=$(now_ms)
"$CLRTRACE" run -o "file:$OUT/kill.jsonl" -o journal --ident jl-kill-$$ -- dotnet "$dll" threads 60 \
	>"$OUT/kill.stdout" 2>"$OUT/kill.stderr" &
prog=$!
sleep 0.8
journald_stop TERM
wait $prog
st=$?
el=$(( $(now_ms) - t0 ))
expect "journald killed: program exit status" "$st" 0
expect "journald killed: program output" "$(cat "$OUT/kill.stdout")" "$(cat "$OUT/base.stdout")"
[ "$el" -lt $((base * 2 + 3000)) ] && ok "journald killed: finished on time (${el} ms, baseline ${base} ms)" ||
	fail "journald killed: took ${el} ms (baseline ${base} ms)"
journald_start
accounted "journald killed" "$OUT/kill.jsonl" 16

# 2. killed and started again: the loss is reported in the journal itself
"$CLRTRACE" run -o "file:$OUT/restart.jsonl" -o journal --ident jl-restart-$$ -- dotnet "$dll" threads 80 \
	>"$OUT/restart.stdout" 2>"$OUT/restart.stderr" &
prog=$!
sleep 0.7
journald_stop TERM
sleep 0.6
journald_start
wait $prog
expect "journald restarted: program exit status" "$?" 0
journald_sync
n=$(jctl -o json -t jl-restart-$$ CLRTRACE_EVENT=trace.dropped CLRTRACE_SINK=journal | wc -l)
[ "$n" -ge 1 ] && ok "journald restarted: trace.dropped is in the journal once it accepts writes again" ||
	fail "journald restarted: no trace.dropped entry in the journal"
# killed mid-run like 1., so the same few entries may die in its socket
accounted "journald restarted" "$OUT/restart.jsonl" 16

# 3. journald frozen (SIGSTOP): the writer blocks, the program does not
t0=$(now_ms)
"$CLRTRACE" run -o "file:$OUT/stop.jsonl" -o journal --ident jl-stop-$$ -- dotnet "$dll" threads 60 \
	>"$OUT/stop.stdout" 2>"$OUT/stop.stderr" &
prog=$!
sleep 0.5
kill -STOP "$JOURNALD_PID"
wait $prog
st=$?
el=$(( $(now_ms) - t0 ))
kill -CONT "$JOURNALD_PID"
expect "journald frozen: program exit status" "$st" 0
expect "journald frozen: program output" "$(cat "$OUT/stop.stdout")" "$(cat "$OUT/base.stdout")"
[ "$el" -lt $((base * 2 + 3000)) ] && ok "journald frozen: finished on time (${el} ms, baseline ${base} ms)" ||
	fail "journald frozen: took ${el} ms (baseline ${base} ms)"
echo "frozen run stderr: $(grep clrtrace: "$OUT/stop.stderr" | head -3)"

# 4. a burst above the rate limit: dropped and counted, no stall
for limit in 500/30 default; do
	if [ "$limit" = default ]; then unset CLRTRACE_JOURNAL_RATELIMIT; calls=15000; else
		export CLRTRACE_JOURNAL_RATELIMIT=$limit; calls=2000; fi
	t0=$(now_ms)
	"$CLRTRACE" run -o "file:$OUT/burst.jsonl" -o journal -e +transitions --ident jl-burst-$$ -- \
		dotnet "$dll" burst $calls >"$OUT/burst.stdout" 2>"$OUT/burst.stderr"
	st=$?
	el=$(( $(now_ms) - t0 ))
	expect "burst ($limit): program output" "$st $(cat "$OUT/burst.stdout")" "0 calls $calls"
	[ "$el" -lt 20000 ] && ok "burst ($limit): no stall (${el} ms for $(wc -l <"$OUT/burst.jsonl") records)" ||
		fail "burst ($limit): took ${el} ms"
	journald_sync
	reason=$(jq -r 'select(.event=="trace.dropped" and .sink=="journal") | .reason' "$OUT/burst.jsonl" | sort -u)
	case "$reason" in *"rate limit"*) ok "burst ($limit): dropped for the rate limit" ;;
		*) fail "burst ($limit): drop reason '$reason'" ;; esac
	accounted "burst ($limit)" "$OUT/burst.jsonl"
	mv "$OUT/burst.jsonl" "$OUT/burst-${limit%%/*}.jsonl"
done
unset CLRTRACE_JOURNAL_RATELIMIT

finish
