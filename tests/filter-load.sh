#!/bin/bash
# dotnet/runtime#132462 under load: 64 threads each throw exceptions through
# a finally into a catch whose filter reads the exception.  Until the
# runtime's fix, a GC while the FilterEnter or CatcherEnter callback runs
# hands the filter or catch a stale exception object; clrtrace only stashes
# a few words there (src/profiler/families/exceptions/deferred.c).  Ten runs under the default
# categories: every one exits 0 and its trace has every exception's story,
# caught, with its filter's result.  (Before that change every run crashed
# here.)  On .NET 10, which has the race, clrtrace pins each exception
# object in flight; on 11, which has the fix, it does not: runtime.init says
# which, and both must hold.
. "$(dirname "$0")/lib.sh"

# 2,000 exceptions a thread: with 500 the old code crashed 2 runs in 11,
# with 2,000 every run (the race needs many GCs to show)
threads=64 iterations=2000 runs=10
n=$((threads * iterations))

# story FILE N ITERATIONS: the program's own count and the trace's story of
# every exception, record by record (jq: for the small run only)
story() {
	local f=$1 n=$2
	grep -q "^done filterload threads=$threads iterations=$3 caught=$n finally=$n" "$f.stdout" ||
		fail "$(basename "$f"): $(cat "$f.stdout")"
	expect "$(basename "$f"): stories (caught in Worker, one filter true) / filter ends (true) / catch blocks" \
		"$(jq -n -c 'reduce inputs as $r ({s: 0, f: 0, c: 0};
		    if $r.event == "exception.summary" and $r.outcome == "caught" and $r.caught_in == "FilterLoad.Program.Worker"
		       and $r.filters == [{function: "FilterLoad.Program.Worker", result: "true"}] then .s += 1
		    elif $r.event == "exception.filter" and $r.phase == "end" and $r.result == "true" then .f += 1
		    elif $r.event == "exception.catch" and $r.phase == "begin" then .c += 1 else . end) | [.s, .f, .c]' "$f")" \
		"[$n,$n,$n]"
	check_trace "$f"
}

for v in $(test_runtimes "10 11"); do
	rt=".NET $v"
	prog=$(program_cmd FilterLoad "$v") || continue
	OUT_ALL=$OUT
	OUT="$OUT_ALL/net$v"
	mkdir -p "$OUT"
	crashed=0
	for i in $(seq 1 $runs); do
		f="$OUT/run$i.jsonl"
		trace "$f" -- $prog $threads $iterations
		st=$?
		if [ "$st" != 0 ]; then
			crashed=$((crashed + 1))
			fail "$rt run $i: exit status $st: $(head -c 300 "$f.stderr" | head -2 | tr '\n' ' ')"
			continue
		fi
		grep -q "^done filterload threads=$threads iterations=$iterations caught=$n finally=$n" "$f.stdout" ||
			fail "$rt run $i: $(cat "$f.stdout")"
		# a trace is 640,000 records (about 200 MB): counted with grep; each
		# filter's result is in its end record and in the summary
		expect "$rt run $i: $n summaries with outcome caught" "$(grep -cF '"outcome":"caught"' "$f")" $n
		expect "$rt run $i: filter results true (filter ends + summaries)" "$(grep -cF '"result":"true"' "$f")" $((2 * n))
		expect "$rt run $i: no trace.error" "$(grep -cF '"event":"trace.error"' "$f")" 0
		expect "$rt run $i: shutdown totals" \
			"$(tail -1 "$f" | jq -c 'select(.event == "runtime.shutdown") | .totals.exceptions | [.caught, .unhandled, .swallowed]')" \
			"[$n,0,0]"
		# schema.sh need not read ten traces of 350 MB
		[ "$FAILED" = 0 ] && rm -f "$f"
	done
	expect "$rt: crashed runs" "$crashed" 0

	# the same program with 100 exceptions a thread, checked record by record,
	# with the steps (frames: the catch blocks, replayed from their deferred
	# CatcherEnter)
	f="$OUT/small.jsonl"
	trace "$f" -e +frames -- $prog $threads 100 || fail "small run: exit status $?"
	story "$f" $((threads * 100)) 100
	expect "$rt: runtime.init says whether exception objects are pinned" "$(head -1 "$f" | jq .runtime.pins_exceptions)" \
		"$([ "$v" = 11 ] && echo false || echo true)"
	OUT=$OUT_ALL
done
finish
