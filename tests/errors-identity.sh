#!/bin/sh
# An exception object is one error however the GC moves it (issue 28,
# point 3), on .NET 10, 8 and 11: tests/programs/Scenarios gc-ident throws
# one object four times (an async method, the Task's awaiter, `throw;` in
# a catch, ExceptionDispatchInfo.Throw on another thread) with compacting
# collections between its throws, and prints whether each moved it.  The
# object must have moved at least once between two of its throws (else
# this tests nothing); the trace must have one exception.error for it,
# known by its weak handle, with every throw, an await hop and two
# rethrows, handled by the program's catch on the other thread.
. "${top_srcdir:-.}/tests/lib.sh"

for v in $(test_runtimes "10 8 11"); do
	n=".NET $v"
	cmd=$(program_cmd Scenarios "$v") || { fail "$n: could not build Scenarios"; continue; }
	f="$OUT/net$v.jsonl"
	trace "$f" -q -- $cmd gc-ident
	expect "$n: exit status 0" "$?" 0
	check_trace "$f"
	expect "$n: the program threw and caught the same object" "$(grep -c '^gc-ident same object True$' "$f.stdout")" 1
	# untraced the collections move it at each step; traced, .NET 9/10
	# pin it while a story of it is open (pin.c): after its store at least
	moved=$(grep -c '^gc-ident [a-z]* moved ' "$f.stdout")
	[ "$moved" -ge 1 ] && ok "$n: the GC moved it $moved times between its throws" ||
		fail "$n: the GC never moved it: $(tr '\n' ';' <"$f.stdout")"
	grep -q '^gc-ident stored moved ' "$f.stdout" && ok "$n: moved while it waited in the Task" ||
		fail "$n: not moved while it waited in the Task"
	if [ "$(rt_major "$v")" != 10 ]; then
		expect "$n: moved in the catch block before throw; and before the other thread's throw (not pinned here)" \
			"$(grep -c -e '^gc-ident caught moved ' -e '^gc-ident thread moved ' "$f.stdout")" 2
	fi
	expect "$n: four throws of it" \
		"$(jq -r 'select(.event == "exception.throw" and .exception.type == "Scenarios.Program+IdentityException") | .error' "$f" | grep -c .)" 4
	expect "$n: every throw names one error" \
		"$(jq -r 'select(.event == "exception.throw" and .exception.type == "Scenarios.Program+IdentityException") | .error' "$f" | sort -u | grep -c .)" 1
	expect "$n: one error: known by its handle, from the async method, 4 throws, 2 rethrows and 1 await, handled by the program" \
		"$(jq -r 'select(.event == "exception.error") | "\(.identity // "handle") \(.origin.function) \(.throws) \(.hops.rethrow // 0)/\(.hops.await // 0)/\(.hops.boundary // 0) \(.fate) \(.handler.kind)"' "$f")" \
		"handle Scenarios.Program+<IdentThrow>d__53.MoveNext 4 2/1/0 handled program"
	expect "$n: the catch that handled it is the other thread's" \
		"$(jq -r 'select(.event == "exception.error") | .handler.function' "$f" | grep -c '<GcIdent>b__')" 1
	expect "$n: no tracer errors" "$(jq -r 'select(.event == "trace.error") | .message' "$f" | tr '\n' ';')" ""
done

finish
