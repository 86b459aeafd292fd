#!/bin/bash
# dotnet/runtime#132462 under load: 64 threads each throw exceptions through
# a finally into a catch whose filter reads the exception.  Until the
# runtime's fix, a GC while the FilterEnter or CatcherEnter callback runs
# hands the filter or catch a stale exception object; clrtrace only stashes
# a few words there (src/exceptions/deferred.c).  Ten runs under the default
# categories: every one exits 0 and its trace has every exception's story,
# caught, with its filter's result.  (Before that change 10 runs out of 10
# crashed here.)
. "$(dirname "$0")/lib.sh"
dll=$(build_program FilterLoad) || exit 1

threads=64 iterations=500 runs=10
n=$((threads * iterations))
# count FILE PATTERN: lines of FILE matching PATTERN (grep: the traces are large)
count() { grep -c -- "$2" "$1"; }

crashed=0
for i in $(seq 1 $runs); do
	f="$OUT/run$i.jsonl"
	trace "$f" -- dotnet "$dll" $threads $iterations
	st=$?
	if [ "$st" != 0 ]; then
		crashed=$((crashed + 1))
		fail "run $i: exit status $st: $(head -c 300 "$f.stderr" | head -2 | tr '\n' ' ')"
		continue
	fi
	grep -q "^done filterload threads=$threads iterations=$iterations caught=$n finally=$n" "$f.stdout" ||
		fail "run $i: $(cat "$f.stdout")"
	expect "run $i: $n summaries, caught" "$(count "$f" '"event":"exception.summary",.*"outcome":"caught"')" $n
	expect "run $i: $n filters ended with result true" \
		"$(count "$f" '"event":"exception.filter","phase":"end",.*"result":"true"')" $n
	expect "run $i: $n catch blocks" "$(count "$f" '"event":"exception.catch","phase":"begin"')" $n
	expect "run $i: every summary lists its filter" \
		"$(count "$f" '"event":"exception.summary",.*"filters":\[{"function":"FilterLoad.Program.Worker","result":"true"}\]')" $n
	expect "run $i: no trace.error" "$(count "$f" '"event":"trace.error"')" 0
	expect "run $i: shutdown totals" \
		"$(tail -1 "$f" | jq -c 'select(.event == "runtime.shutdown") | .totals.exceptions | [.caught, .unhandled, .swallowed]')" \
		"[$n,0,0]"
	# the whole trace once (schema, nesting, seq); the others are only
	# counted and removed: schema.sh need not read 10 traces of 90 MB
	if [ "$i" = 1 ]; then
		check_trace "$f"
	elif [ "$FAILED" = 0 ]; then
		rm -f "$f"
	fi
done
expect "crashed runs" "$crashed" 0
finish
