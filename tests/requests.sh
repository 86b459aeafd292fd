#!/bin/sh
# Which request an error belongs to (the requests category), on the real
# ASP.NET Core service (tests/programs/Web), on .NET 10, 8 and 11.  With
# WEB_BACKGROUND=1 a loop outside any request throws BackgroundException
# every 2 ms.  Forty /req/N at once, three times: each throws, in an async
# method on the thread pool, a WebException "req N", caught at the await.
# Twenty /unowned/N at once: each queues, without its execution context,
# work that throws BackgroundException "unowned N" on the same thread while
# the request waits.  Every "req N" error must name its own request (GET
# /req/N, Kestrel's request id, one id per request); no BackgroundException
# may name one.  Without the category, no record has a request.
. "${top_srcdir:-.}/tests/lib.sh"
command -v curl >/dev/null 2>&1 || skip "curl is needed (run setup.sh)"

# burst URL FROM TO PATH: GET PATH/N for N in FROM..TO at once; "N ANSWER" lines
burst() {
	for i in $(seq "$2" "$3"); do
		echo "$i $(curl -s -m 20 "$1$4/$i")" &
	done
	wait
}

# serve URL: wait for the service, then the requests; their answers, sorted
serve() {
	for _ in $(seq 300); do
		curl -s -m 5 -o /dev/null "$1/" && break
		sleep 0.1
	done
	{
		burst "$1" 101 140 /req
		burst "$1" 201 240 /req
		burst "$1" 301 340 /req
		burst "$1" 1 20 /unowned
	} | sort -n
}

want_resp() {
	for i in $(seq 1 20); do echo "$i unowned $i"; done
	for i in $(seq 101 140) $(seq 201 240) $(seq 301 340); do echo "$i req $i"; done
}

for v in $(test_runtimes "10 8 11"); do
	n=".NET $v"
	cmd=$(program_cmd Web "$v") || { fail "$n: could not build Web"; continue; }
	for mode in on off; do
		t="$OUT/net$v-$mode.jsonl"
		url="http://127.0.0.1:$(free_port)"
		if [ $mode = on ]; then ev=+requests; else ev=-requests; fi
		WEB_BACKGROUND=1 timeout -k 10 180 "$CLRTRACE" run -q -e "$ev" -o "file:$t" -- $cmd "$url" >"$OUT/net$v-$mode.out" 2>&1 &
		rpid=$!
		serve "$url" >"$OUT/net$v-$mode.resp"
		svc=$(pgrep -P "$(pgrep -P $rpid)")
		[ -n "$svc" ] && kill -TERM $svc
		wait $rpid
		expect "$n $mode: exit status 0 after SIGTERM" "$?" 0
		expect "$n $mode: every request answered" "$(cat "$OUT/net$v-$mode.resp")" "$(want_resp)"
		check_trace "$t"
		bg=$(jq -r 'select(.event == "exception.error" and .exception.type == "BackgroundException") | .exception.message' "$t" | grep -c .)
		[ "$bg" -gt 20 ] && ok "$n $mode: $bg BackgroundException errors" || fail "$n $mode: only $bg BackgroundException errors"
		expect "$n $mode: every unowned work item's error" \
			"$(jq -r 'select(.event == "exception.error" and .exception.type == "BackgroundException") | .exception.message' "$t" | grep -c '^unowned')" 20
		if [ $mode = off ]; then
			expect "$n off: no record names a request" "$(jq -r 'select(has("request")) | .event' "$t" | sort -u | tr '\n' ' ')" ""
			continue
		fi
		# each "req N" error: "N METHOD PATH ID"
		jq -r 'select(.event == "exception.error" and .exception.type == "WebException")
			| "\(.exception.message | ltrimstr("req ")) \(.request.method) \(.request.path) \(.request.id)"' "$t" | sort -n >"$OUT/net$v-req.txt"
		expect "$n: 120 WebException errors, one per request" "$(grep -c . "$OUT/net$v-req.txt")" 120
		expect "$n: each names its own request: GET /req/N" \
			"$(awk '$2 != "GET" || $3 != "/req/" $1' "$OUT/net$v-req.txt" | head -5)" ""
		expect "$n: each has Kestrel's request id (CONNECTION:NUMBER), one per request" \
			"$(awk '$4 ~ /^[0-9A-Z]+:[0-9A-F]+$/ && length($4) > 9 { print $4 }' "$OUT/net$v-req.txt" | sort -u | grep -c .)" 120
		expect "$n: each throw of a request's error names the same request" \
			"$(jq -r 'select(.event == "exception.throw" and .exception.type == "WebException") | "\(.error) \(.request.id)"' "$t" |
				sort -u | awk '{ k[$1]++ } END { for (e in k) if (k[e] > 1) print e }')" ""
		expect "$n: no BackgroundException names a request" \
			"$(jq -r 'select((.event == "exception.error" or .event == "exception.throw") and .exception.type == "BackgroundException" and has("request"))
				| "\(.exception.message) \(.request.path)"' "$t" | head -5)" ""
		# view's block of an error, and stats' errors by request
		expect "$n: view's block of the error 'req 101' names its request" \
			"$("$CLRTRACE" view "$t" | grep -A2 'exception.error .*WebException: req 101 ' | grep -c '^ *in request GET /req/101 ([0-9A-Z]*:[0-9A-F]*)$')" 1
		"$CLRTRACE" stats -n 0 "$t" >"$OUT/net$v-stats.txt"
		expect "$n: stats counts the errors by request" \
			"$(sed -n '/^Errors by request:/,/^$/p' "$OUT/net$v-stats.txt" | grep -c '^ *1  GET /req/[0-9]*: WebException -> handled$')" 120
		expect "$n: runtime.shutdown counts the requests, none lost" \
			"$(jq -r 'select(.event == "runtime.shutdown") | .totals.exceptions.requests | "\(.started >= 140) \(.lost)"' "$t")" "true 0"
	done
done
finish
