#!/bin/sh
# kill -9 while 4 threads throw (tests/programs/Storm), once the trace file
# has records: what the process had recorded is in FILE.<pid>.pending, and
# `clrtrace recover` (the program under the profiler alone) or `clrtrace
# run` (its child killed by someone else) brings it into the file with no
# record twice and no torn line; seq runs from 1 to the last with no gap
# (what was in flight at the kill is lost only at the end); check passes
# (it does not count a story the kill cut short as a problem; stats counts
# those as outcome "unknown"); each thread's exceptions are 0..N-1 with no
# hole, at least those it had caught when the program said so summarised,
# only its last one cut.  CLRTRACE_STRESS_ROUNDS times each (default 1: a
# round's traces take a minute to read), on .NET 10, 8 and 9.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/lib-storm.sh"
GUID='{94D19DC5-3374-47C3-9729-75E330DECA23}'

# started FILE: until the program said "throwing" and FILE has records
started() {
	for _ in $(seq 600); do
		grep -q '^throwing$' "$1.stdout" 2>/dev/null && [ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# after_kill FILE NAME: what the recovered trace FILE must hold
after_kill() {
	local f=$1 n=$2 cut
	facts "$f"
	whole "$f" "$n" died
	in_ts_order "$f" "$n"
	threads "$f" "$n" completed atleast
	expect "$n: 4 threads' exceptions in the trace" "$(fact "$f" '.storm | length')" 4
	expect "$n: no runtime.shutdown (the process was killed)" "$(fact "$f" '.events["runtime.shutdown"]')" null
	cut=$(fact "$f" '[.storm[].unsummarised | length] | add')
	expect "$n: stats counts the $cut stories the kill cut short as unknown" \
		"$("$CLRTRACE" stats --json "$f" | jq -c '.exceptions.by_outcome.unknown // 0')" "$cut"
}

# slow: where exception handling differs (8 legacy; 10 pinned, 11 not)
for v in $(test_runtimes "10 8 11"); do
	prog=$(program_cmd Storm "$v")
	for i in $(seq "${CLRTRACE_STRESS_ROUNDS:-1}"); do
		# the program under the profiler alone; recover by hand
		n=".NET $v, kill -9, recover ($i)"
		f="$OUT/net$v-recover-$i.jsonl"
		start=$(date +%s)
		rm -f "$f" "$f".*.pending
		env CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER="$GUID" CORECLR_PROFILER_PATH="$CLRTRACE_LIBRARY" \
			CLRTRACE_OUTPUT="file:$f" $prog forever 4 >"$f.stdout" 2>"$f.stderr" &
		pid=$!
		started "$f" || fail "$n: the program did not start throwing: $(head -c 300 "$f.stderr")"
		kill -9 $pid
		wait $pid 2>/dev/null
		expect "$n: the program died of SIGKILL" "$?" 137
		[ -s "$f.$pid.pending" ] && ok "$n: FILE.<pid>.pending holds the unwritten records" || fail "$n: no FILE.$pid.pending"
		before=$(wc -l <"$f")
		"$CLRTRACE" recover "$f" 2>"$f.recover"
		expect "$n: recover exits 0" "$?" 0
		after=$(wc -l <"$f")
		# a kill that lands just after a round (every thread waiting for
		# the one writing) leaves only records already in the file: then
		# recover appends nothing and says nothing; the checks below hold
		# the file whole either way
		if grep -q "recovered $((after - before)) records into" "$f.recover" && [ "$after" -gt "$before" ]; then
			ok "$n: recover appended $((after - before)) records to the $before written"
		elif [ "$after" = "$before" ] && [ ! -s "$f.recover" ]; then
			ok "$n: recover found every staged record already in the file ($before)"
		else
			fail "$n: recover said: $(cat "$f.recover") (lines before $before, after $after)"
		fi
		[ ! -e "$f.$pid.pending" ] && ok "$n: FILE.<pid>.pending is removed" || fail "$n: FILE.$pid.pending left"
		after_kill "$f" "$n"
		"$CLRTRACE" recover "$f" 2>/dev/null
		expect "$n: a second recover changes nothing" "$(wc -l <"$f")" "$after"
		echo "$n: $after records, $(($(date +%s) - start)) s"
		[ -s "$FAILMARK" ] || rm -f "$f"

		# clrtrace run, its child killed by someone else: run merges
		n=".NET $v, kill -9 under clrtrace run ($i)"
		f="$OUT/net$v-run-$i.jsonl"
		start=$(date +%s)
		rm -f "$f"
		timeout -k 10 600 "$CLRTRACE" run -o "file:$f" -- $prog forever 4 >"$f.stdout" 2>"$f.stderr" &
		rp=$!
		started "$f" || fail "$n: the program did not start throwing: $(head -c 300 "$f.stderr")"
		# timeout's child is clrtrace, whose child is the program
		pid=$(pgrep -P "$(pgrep -P $rp)")
		[ -n "$pid" ] && kill -9 "$pid" || fail "$n: no program to kill"
		wait $rp 2>/dev/null
		expect "$n: run exits as its child died (128 + SIGKILL)" "$?" 137
		! ls "$f".*.pending >/dev/null 2>&1 && ok "$n: run merged FILE.<pid>.pending" || fail "$n: FILE.<pid>.pending left"
		grep -q "records, .* trace in $f" "$f.stderr" && ok "$n: run printed its summary" || fail "$n: no summary: $(tail -3 "$f.stderr")"
		after_kill "$f" "$n"
		echo "$n: $(fact "$f" .seq.count) records, $(($(date +%s) - start)) s"
		[ -s "$FAILMARK" ] || rm -f "$f"
	done
done

finish
