#!/bin/sh
# An ASP.NET Core service under every category, under load from curl, on
# each runtime: it answers exactly as untraced, still answers after the
# load, shuts down on SIGTERM, and the trace is whole and true: every
# exception the framework handled has its story, including those that
# cross the runtime's native boundaries (a reflection call, the dependency
# injection container's activation, a type initializer), and none is
# called unhandled.
. "${top_srcdir:-.}/tests/lib.sh"
command -v curl >/dev/null 2>&1 || skip "curl is needed (run setup.sh)"

ROUNDS=30
PATHS="/ /boom /fail /slow /invoke /di /activate /typeinit /handled"

# load NAME URL: $ROUNDS rounds of one request to each path; responses and
# codes to $OUT/NAME.resp.  Loopback only, every request bounded.
load() {
	local url=$2
	for _ in $(seq 100); do curl -s -m 5 -o /dev/null "$url/" && break; sleep 0.1; done
	for _ in $(seq $ROUNDS); do
		for p in $PATHS; do
			echo "$p $(curl -s -m 10 -w ' %{http_code}' "$url$p")"
		done
	done >"$OUT/$1.resp"
}

# stories FILE: for each exception first thrown (not a rethrow) by the
# program's endpoints, where its story ends: follow superseded_by (a
# rethrow of the same object, or the wrapper that took it) to the summary
# that says caught.  One line "TYPE MESSAGE -> END_TYPE caught in WHERE"
# per story, counted; the compiler-made names of the endpoint lambdas and
# Kestrel's request loop are named for what they are.
stories() {
	jq -s -r '
	  [.[] | select(.event == "exception.summary")] as $s
	  | ($s | map({key: (.exception.id | tostring), value: .}) | from_entries) as $by
	  | def story_end($d): if $d > 20 or .superseded_by == null then . else $by[.superseded_by | tostring] | story_end($d + 1) end;
	    def where: if . == null then "nowhere"
	      elif test("^Program\\+<>c\\.<<Main>\\$>b__") then "the endpoint"
	      elif test("HttpProtocol(\\+<|\\.)ProcessRequests") then "Kestrel (500)"
	      elif test("ExceptionHandlerMiddleware") then "the exception handler (500)"
	      else . end;
	  $s[] | select((.rethrow | not) and (.exception.message as $m
	      | ["boom", "bad request", "invoke", "constructor", "cctor", "handled"] | index($m))
	    or .exception.type == "System.TypeInitializationException")
	  | . as $o | story_end(0)
	  | "\($o.exception.type | sub(".*\\."; "")) \($o.exception.message) -> \(.exception.type | sub(".*\\."; "")) \(.outcome) in \(.caught_in | where)"' "$1" |
		sort | uniq -c | sed 's/^ *//'
}

for v in $(test_runtimes); do
	n=".NET $v"
	cmd=$(program_cmd Web "$v")
	url="http://127.0.0.1:$(free_port)"

	# timeout passes SIGTERM on to the service
	timeout -k 10 300 $cmd "$url" >"$OUT/net$v-plain.out" 2>&1 &
	pid=$!
	load "net$v-plain" "$url"
	kill -TERM $pid
	wait $pid
	plain_st=$?

	t="$OUT/net$v-web.jsonl"
	timeout -k 10 300 "$CLRTRACE" run -e all -o "file:$t" -- $cmd "$url" >"$OUT/net$v-traced.out" 2>&1 &
	rpid=$!
	load "net$v-traced" "$url"
	expect "$n traced: still answers after the load" "$(curl -s -m 10 "$url/")" hello
	# the service itself (clrtrace run's child), not clrtrace run
	svc=$(pgrep -P "$(pgrep -P $rpid)")
	[ -n "$svc" ] && kill -TERM $svc
	wait $rpid
	traced_st=$?

	cmp -s "$OUT/net$v-plain.resp" "$OUT/net$v-traced.resp" &&
		ok "$n: $(grep -c . "$OUT/net$v-traced.resp") responses identical with and without the tracer" ||
		fail "$n: responses differ: $(diff "$OUT/net$v-plain.resp" "$OUT/net$v-traced.resp" | head -3)"
	# what each endpoint answers: the reflection call and the type
	# initializer are caught in the endpoint, the rest answer 500
	expect "$n: each endpoint answers as written" \
		"$(sort "$OUT/net$v-traced.resp" | uniq -c | sed 's/^ *//' | tr '\n' ';')" \
		"$ROUNDS / hello 200;$ROUNDS /activate  500;$ROUNDS /boom boom 200;$ROUNDS /di  500;$ROUNDS /fail  500;$ROUNDS /handled handled 500;$ROUNDS /invoke wrapped invoke 200;$ROUNDS /slow slow 200;$ROUNDS /typeinit typeinit cctor 200;"
	expect "$n: exit status 0 after SIGTERM, untraced" "$plain_st" 0
	expect "$n: the same exit status after SIGTERM, traced" "$traced_st" "$plain_st"
	expect "$n: the trace ends with runtime.shutdown" "$(tail -1 "$t" | jq -r .event)" runtime.shutdown
	expect "$n: one process traced, on .NET $v" "$(jq -r 'select(.event == "runtime.init") | .runtime.major' "$t")" "$(rt_major "$v")"
	check_trace "$t"
	expect "$n: no tracer errors" "$(jq -r 'select(.event == "trace.error") | .message' "$t" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" ""
	k=$(jqf "$t" 'select(.event=="thread.create")' | grep -c .)
	[ "$k" -gt 5 ] && ok "$n: $k managed threads created" || fail "$n: only $k threads"

	# the verdicts: the framework catches every exception
	expect "$n: no exception.unhandled" \
		"$(jq -r 'select(.event == "exception.unhandled") | "\(.exception.type) \(.exception.message)"' "$t" | tr '\n' ';')" ""
	expect "$n: clrtrace stats counts no unhandled exception" \
		"$("$CLRTRACE" stats "$t" | grep '^Exceptions:' | grep -c 'unhandled')" 0
	expect "$n: every summary says caught, rethrown or superseded" \
		"$(jq -r 'select(.event == "exception.summary" and ([.outcome] | inside(["caught", "rethrown", "superseded"]) | not)) | "\(.exception.id) \(.exception.type) \(.outcome)"' "$(full "$t")" | tr '\n' ';')" ""
	expect "$n: every exception thrown has its summary" \
		"$(jq -r 'select(.event == "exception.throw") | .exception.id' "$t" | sort -n | tr '\n' ' ')" \
		"$(jq -r 'select(.event == "exception.summary") | .exception.id' "$(full "$t")" | sort -n | tr '\n' ' ')"
	# each outcome is what the next record of the story says: a rethrown
	# exception is thrown again as the same object; a superseded one is
	# the InnerException of the wrapper the runtime threw (no finally of
	# this program throws); a caught one names its catch
	expect "$n: every rethrown story goes on in a throw of the same object" \
		"$(jq -s -r '[.[] | select(.event == "exception.summary")] as $s
		  | ($s | map({key: (.exception.id | tostring), value: .}) | from_entries) as $by
		  | $s[] | select(.outcome == "rethrown" and ($by[.superseded_by | tostring].rethrow_of != .exception.id)) | .exception.id' "$(full "$t")" | tr '\n' ' ')" ""
	expect "$n: every superseded story is wrapped by a TargetInvocationException or TypeInitializationException" \
		"$(jq -s -r '[.[] | select(.event == "exception.summary")] as $s
		  | ($s | map({key: (.exception.id | tostring), value: .}) | from_entries) as $by
		  | $s[] | select(.outcome == "superseded" and (.wrapped != true or
		      ([$by[.superseded_by | tostring].exception.type] | inside(["System.Reflection.TargetInvocationException", "System.TypeInitializationException"]) | not)))
		  | .exception.id' "$(full "$t")" | tr '\n' ' ')" ""
	expect "$n: every caught story names its catch" \
		"$(jq -r 'select(.event == "exception.summary" and .outcome == "caught" and .caught_in == null) | .exception.id' "$(full "$t")" | tr '\n' ' ')" ""

	# where each endpoint's exceptions end: /invoke's in the wrapper the
	# endpoint catches, /di's and /activate's (the constructor that
	# throws) in Kestrel, which answers 500, the static constructor's once
	# (its wrapper is raised again at every later access) and /handled's
	# in the exception handler
	# (.NET 11 runs a static constructor from managed code,
	# InitHelpers.CallClassConstructor, whose catch wraps the exception:
	# no native boundary is crossed)
	cctor_end="TypeInitializationException caught in the endpoint"
	[ "$v" = 11 ] && cctor_end="WebException caught in System.Runtime.CompilerServices.InitHelpers.CallClassConstructor"
	expect "$n: the story of every endpoint's exceptions" "$(stories "$(full "$t")" | tr '\n' ';')" \
		"$ROUNDS ArgumentException bad request -> ArgumentException caught in Kestrel (500);$ROUNDS InvalidOperationException boom -> InvalidOperationException caught in the endpoint;$ROUNDS TypeInitializationException The type initializer for 'Doomed' threw an exception. -> TypeInitializationException caught in the endpoint;1 WebException cctor -> $cctor_end;$((2 * ROUNDS)) WebException constructor -> WebException caught in Kestrel (500);$ROUNDS WebException handled -> WebException caught in the exception handler (500);$ROUNDS WebException invoke -> TargetInvocationException caught in the endpoint;"
	expect "$n: $ROUNDS ArgumentExceptions thrown by /fail, each with its summary" \
		"$(jqf "$(full "$t")" 'select(.event=="exception.summary" and .exception.message=="bad request" and (.rethrow | not)) | .exception.id' | sort -u | grep -c .)" $ROUNDS
	expect "$n: and each rethrown once by the framework, linked to the original" \
		"$(jqf "$(full "$t")" 'select(.event=="exception.summary" and .exception.message=="bad request" and .rethrow_of != null) | .rethrow_of' | sort -u | grep -c .)" $ROUNDS
	expect "$n: every InvalidOperationException of /boom caught where it was thrown" \
		"$(jqf "$(full "$t")" 'select(.event=="exception.summary" and .exception.message=="boom" and .outcome=="caught" and .caught_in==.thrown_in)' | grep -c .)" $ROUNDS
	# the service's own log says the same: Kestrel and the exception
	# handler log each exception they answered with a 500
	expect "$n: as many stories end in Kestrel as it logged exceptions" \
		"$(grep -c '^fail: Microsoft.AspNetCore.Server.Kestrel\[13\]' "$OUT/net$v-traced.out")" $((3 * ROUNDS))
	expect "$n: as many stories end in the exception handler as it logged exceptions" \
		"$(grep -c '^fail: Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware\[1\]' "$OUT/net$v-traced.out")" $ROUNDS

	# the native boundaries were really crossed: the static constructor's
	# exception everywhere; on .NET 9 and 10 (new exception handling) also
	# the first reflection call's and the container's first activations
	# (on .NET 11 the static constructor's is caught in managed code)
	want="cctor"
	[ "$v" != 8 ] && want="cctor constructor invoke"
	[ "$v" = 11 ] && want="constructor invoke"
	expect "$n: the exceptions that crossed a native boundary" \
		"$(jq -r 'select(.event == "exception.summary" and .boundary == true) | .exception.message' "$(full "$t")" | sort -u | tr '\n' ' ')" "$want "
	if [ "$v" = 11 ]; then
		expect "$n: the static constructor's exception: caught by the runtime, whose next throw is the TypeInitializationException" \
			"$(jq -s -r '(map(select(.event == "exception.summary" and .exception.message == "cctor")) | .[0]) as $c
			  | "\($c.outcome) \(map(select(.event == "exception.throw" and .exception.id == $c.exception.id + 1)) | .[0].exception.type)"' "$(full "$t")")" \
			"caught System.TypeInitializationException"
	else
		expect "$n: the static constructor's exception: superseded by the TypeInitializationException that wraps it" \
			"$(jq -r 'select(.event == "exception.summary" and .exception.message == "cctor") | "\(.outcome) wrapped=\(.wrapped) boundary=\(.boundary)"' "$(full "$t")")" \
			"superseded wrapped=true boundary=true"
	fi
done

finish
