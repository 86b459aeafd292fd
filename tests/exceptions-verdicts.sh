#!/bin/sh
# Truthful verdicts on every runtime of the matrix (tests/programs/Verdicts): native
# boundaries (reflection, type initializers) are no unhandled exception, a
# reverse P/Invoke is; an exception the runtime reported unhandled and a
# finally then replaced is no crash; Environment.Exit ends every story; a
# rethrow reads as one journey.
. "${top_srcdir:-.}/tests/lib.sh"

# the outcomes of the stories, in id order, and the exit status, per runtime
want() {
	case $2 in
	invoke) [ "$1" = 8 ] && echo "superseded,caught,superseded,caught,superseded,caught 0" ||
		echo "rethrown,superseded,caught,superseded,caught,superseded,caught 0" ;;
	dynamic-invoke) [ "$1" = 8 ] && echo "superseded,caught 0" || echo "rethrown,superseded,caught 0" ;;
	activator) echo "superseded,caught 0" ;;
	# .NET 11 runs a type initializer from managed code, whose catch takes
	# the exception before the TypeInitializationException is thrown
	type-init) [ "$1" = 11 ] && echo "caught,caught 0" || echo "superseded,caught 0" ;;
	type-init-again) [ "$1" = 11 ] && echo "caught,caught,caught 0" || echo "superseded,caught,caught 0" ;;
	reverse-pinvoke | reverse-delegate | unhandled-main | unhandled-pool | unhandled-handler) echo "unhandled 134" ;;
	dispose-caught) [ "$1" = 8 ] && echo "unhandled 134" || echo "superseded,caught 0" ;;
	dispose-uncaught) [ "$1" = 8 ] && echo "unhandled 134" || echo "superseded,unhandled 134" ;;
	dispose-in-main) [ "$1" = 8 ] && echo "unhandled 134" || echo "superseded,caught 0" ;;
	finally-in-main) echo "unhandled 134" ;;
	exit-in-catch) echo "caught 3" ;;
	exit-in-finally) echo "unknown 4" ;;
	exit-other-thread) echo "caught 5" ;;
	rethrow) echo "rethrown,caught 0" ;;
	edi | await | catch-in-finally) echo "caught,caught 0" ;;
	finally-left) echo "superseded,caught 0" ;;
	esac
}
scenarios="invoke dynamic-invoke activator type-init type-init-again reverse-pinvoke reverse-delegate unhandled-main unhandled-pool
	unhandled-handler dispose-caught dispose-uncaught exit-in-catch exit-in-finally exit-other-thread rethrow edi await
	catch-in-finally finally-left dispose-in-main finally-in-main"

runtimes=$(test_runtimes) || die "runtimes missing"
for v in $runtimes; do
	cmd=$(program_cmd Verdicts "$v") || die "could not build Verdicts for .NET $v"
	for s in $scenarios; do
		t="$OUT/net$v-$s.jsonl"
		trace "$t" -- $cmd "$s"
		st=$?
		got=$(jq -s -r '[.[] | select(.event=="exception.summary")] | sort_by(.exception.id) | map(.outcome) | join(",")' "$(full "$t")")
		expect ".NET $v $s: outcomes and exit status" "$got $st" "$(want "$v" "$s")"
		check_trace "$t"
	done
	j() { jq -s -c "$2" "$(full "$OUT/net$v-$1.jsonl")"; }
	# boundaries: no exception.unhandled, and no later exception nested in
	# the one that crossed it
	for s in invoke dynamic-invoke activator type-init; do
		expect ".NET $v $s: no exception.unhandled" "$(j $s '[.[] | select(.event=="exception.unhandled")] | length')" 0
	done
	if [ "$v" = 11 ]; then
		expect ".NET $v type-init: caught by the runtime's CallClassConstructor, then the TypeInitializationException" \
			"$(j type-init '[.[] | select(.event=="exception.summary") | [.exception.type, .caught_in]]')" \
			'[["Verdicts.AlphaException","System.Runtime.CompilerServices.InitHelpers.CallClassConstructor"],["System.TypeInitializationException","Verdicts.Program.TypeInit"]]'
	else
		expect ".NET $v type-init: wrapped by the TypeInitializationException" \
			"$(j type-init '[.[] | select(.event=="exception.summary" and .exception.id==1) | [.wrapped, .superseded_by]]')" '[[true,2]]'
	fi
	expect ".NET $v type-init: the wrapper is not nested in it" \
		"$(j type-init '[.[] | select(.event=="exception.throw" and .exception.id==2) | .nested_in]')" '[null]'
	if [ "$v" != 8 ]; then
		expect ".NET $v invoke: the first call's exception crossed a boundary, raised again as #2" \
			"$(j invoke '[.[] | select(.event=="exception.summary" and .exception.id==1) | [.boundary, .superseded_by]]')" '[[true,2]]'
		expect ".NET $v invoke: #2 is the same object (rethrow of #1)" \
			"$(j invoke '[.[] | select(.event=="exception.throw" and .exception.id==2) | [.rethrow_of, .origin, .nested_in]]')" '[[1,1,null]]'
		expect ".NET $v invoke: nothing later nested in #1" \
			"$(j invoke '[.[] | select(.event=="exception.throw" and .nested_in.id==1)] | length')" 0
		expect ".NET $v dispose-caught: the runtime's early exception.unhandled stays" \
			"$(j dispose-caught '[.[] | select(.event=="exception.unhandled") | .exception.id]')" '[1]'
		expect ".NET $v dispose-caught: then the story says superseded after a reported unhandled" \
			"$(j dispose-caught '[.[] | select(.event=="exception.summary" and .exception.id==1) | [.reported_unhandled, .superseded_by]]')" '[[true,2]]'
		expect ".NET $v dispose-caught: the runtime said so" "$(grep -c 'Unhandled exception' "$OUT/net$v-dispose-caught.jsonl.stderr")" 1
		expect ".NET $v dispose-caught: stats counts no crash" \
			"$("$CLRTRACE" stats --json "$OUT/net$v-dispose-caught.jsonl" | jq -c '.exceptions.by_outcome')" '{"superseded":1,"caught":1}'
		"$CLRTRACE" view --throws --color=never "$OUT/net$v-dispose-caught.jsonl" >"$OUT/net$v-dispose-caught.view"
		expect ".NET $v dispose-caught: view says it was replaced, no crash" \
			"$(grep -c 'the runtime reported it unhandled, then a finally replaced it' "$OUT/net$v-dispose-caught.view")" 1
		# the same in Main, the outermost frame: the summary waits for
		# Main's finally (Dispose), which replaces it
		expect ".NET $v dispose-in-main: superseded after a reported unhandled" \
			"$(j dispose-in-main '[.[] | select(.event=="exception.summary" and .exception.id==1) | [.outcome, .reported_unhandled, .superseded_by]]')" \
			'[["superseded",true,2]]'
		expect ".NET $v dispose-in-main: the early exception.unhandled stays" \
			"$(j dispose-in-main '[.[] | select(.event=="exception.unhandled") | .exception.id]')" '[1]'
		# Main's finally ends and the process dies: the summary still
		# comes, after that finally
		expect ".NET $v finally-in-main: the summary comes after Main's finally" \
			"$(j finally-in-main '[.[] | select(.event=="exception.summary") | [.outcome, .finally]]')" \
			'[["unhandled",["Verdicts.Program.Main"]]]'
	fi
	expect ".NET $v reverse-pinvoke: unhandled in the callback" \
		"$(j reverse-pinvoke '[.[] | select(.event=="exception.unhandled") | .thrown_in]')" '["Verdicts.Program.Compare"]'
	expect ".NET $v unhandled-handler: the handler ran" \
		"$(grep -c 'handler saw AlphaException' "$OUT/net$v-unhandled-handler.jsonl.stderr")" 1
	expect ".NET $v exit-in-catch: the story ends, cut short by the exit" \
		"$(j exit-in-catch '[.[] | select(.event=="exception.summary") | [.interrupted, .caught_in]]')" \
		'[["exit","Verdicts.Program.ExitInCatch"]]'
	expect ".NET $v exit-in-finally: the story ends, cut short by the exit" \
		"$(j exit-in-finally '[.[] | select(.event=="exception.summary") | .interrupted]')" '["exit"]'
	# another thread sleeps in a catch block when Main calls Environment.Exit:
	# its story ends too, on that thread, before runtime.shutdown
	expect ".NET $v exit-other-thread: the other thread's story ends, cut short by the exit" \
		"$(j exit-other-thread '(map(select(.event=="runtime.shutdown"))[0].tid) as $main |
			[.[] | select(.event=="exception.summary") | [.outcome, .interrupted, (.caught_in | endswith("<ExitOtherThread>b__0")), .tid != $main]]')" \
		'[["caught","exit",true,true]]'
	expect ".NET $v exit-other-thread: no story is left open at shutdown" \
		"$(j exit-other-thread '[.[] | select(.event=="runtime.shutdown") | .totals.exceptions.open]')" '[0]'
	expect ".NET $v exit-other-thread: the summary comes before runtime.shutdown" \
		"$(j exit-other-thread 'map(.event) | index("exception.summary") < index("runtime.shutdown")')" true
	expect ".NET $v rethrow: one journey (#1 thrown again as #2)" \
		"$(j rethrow '[.[] | select(.event=="exception.summary") | [.exception.id, .superseded_by, .rethrow_of, .origin]]')" \
		'[[1,2,null,null],[2,null,1,1]]'
	for s in edi await; do
		expect ".NET $v $s: the rethrow names where the chain began" \
			"$(j $s '[.[] | select(.event=="exception.throw" and .rethrow) | [.rethrow_of, .origin]]')" '[[1,1]]'
	done
	# names as the source says them: the catch the async builder does in
	# ThrowLater's state machine is ThrowLater's; without a stack the name
	# cannot tell async from iterator, with one its caller does
	"$CLRTRACE" view --throws --color=never "$OUT/net$v-await.jsonl" >"$OUT/net$v-await.view"
	expect ".NET $v await: view says the catch in Verdicts.Program.ThrowLater [async or iterator]" \
		"$(grep -c 'exception\.summary #1 Verdicts\.AlphaException caught, thrown in Verdicts\.Program\.Boom, caught in Verdicts\.Program\.ThrowLater \[async or iterator\];' "$OUT/net$v-await.view")" 1
	# shellcheck disable=SC2086 # cmd is words
	trace "$OUT/net$v-await-stacks.jsonl" -e +stacks -- $cmd await
	"$CLRTRACE" view --throws --color=never "$OUT/net$v-await-stacks.jsonl" >"$OUT/net$v-await-stacks.view"
	expect ".NET $v await, stacks: view says the catch in Verdicts.Program.ThrowLater [async]" \
		"$(grep -c 'exception\.summary #1 Verdicts\.AlphaException caught, thrown in Verdicts\.Program\.Boom, caught in Verdicts\.Program\.ThrowLater \[async\];' "$OUT/net$v-await-stacks.view")" 1
	expect ".NET $v await: the records keep the raw name" \
		"$(jq -r 'select(.event == "exception.summary" and .exception.id == 1) | .caught_in' "$(full "$OUT/net$v-await-stacks.jsonl")" | sed 's/d__[0-9]*/d__N/')" \
		'Verdicts.Program+<ThrowLater>d__N.MoveNext'
	# the runtime throws the TypeInitializationException it cached again
	# at the second access, its stack trace cleared: the same object,
	# type and InnerException make it a rethrow of #2
	expect ".NET $v type-init-again: the second TypeInitializationException is #2 thrown again" \
		"$(j type-init-again '[.[] | select(.event=="exception.throw") | [.exception.id, .rethrow_of, .origin]]')" \
		'[[1,null,null],[2,null,null],[3,2,2]]'
	expect ".NET $v type-init-again: stats counts 3 throws of 2 objects" \
		"$("$CLRTRACE" stats --json "$OUT/net$v-type-init-again.jsonl" | jq -c '.exceptions | [.throws, .objects]')" '[3,2]'
	expect ".NET $v rethrow: stats counts 2 throws of 1 object" \
		"$("$CLRTRACE" stats --json "$OUT/net$v-rethrow.jsonl" | jq -c '.exceptions | [.throws, .objects]')" '[2,1]'
	"$CLRTRACE" view --throws --color=never "$OUT/net$v-rethrow.jsonl" >"$OUT/net$v-rethrow.view"
	expect ".NET $v rethrow: view shows the rethrow of #1" "$(grep -c 'exception.throw #2 .*(rethrow of #1)' "$OUT/net$v-rethrow.view")" 1
done
finish
