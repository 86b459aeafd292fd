#!/bin/sh
# An ASP.NET Core service under every category, under load from curl: it
# answers exactly as untraced, shuts down on SIGTERM, and the trace is
# whole: every exception the framework handled has its story.
. "${top_srcdir:-.}/tests/lib.sh"
command -v curl >/dev/null 2>&1 || skip "curl is needed (run setup.sh)"
dll=$(build_program Web)
port=$((20000 + $$ % 20000))
url="http://127.0.0.1:$port"

# load NAME: 30 rounds of four requests; responses and codes to $OUT/NAME.resp
load() {
	for _ in $(seq 100); do curl -s -o /dev/null "$url/" && break; sleep 0.1; done
	for i in $(seq 30); do
		for p in / /boom /fail /slow; do
			echo "$p $(curl -s -w ' %{http_code}' "$url$p")"
		done
	done >"$OUT/$1.resp"
}

dotnet "$dll" "$url" >"$OUT/plain.out" 2>&1 &
pid=$!
load plain
kill -TERM $pid
wait $pid
plain_st=$?

t="$OUT/web.jsonl"
timeout -k 10 300 "$CLRTRACE" run -e all -o "file:$t" -- dotnet "$dll" "$url" >"$OUT/traced.out" 2>&1 &
rpid=$!
load traced
pkill -TERM -f "^dotnet $dll $url" # the service itself, not clrtrace run
wait $rpid
traced_st=$?

cmp -s "$OUT/plain.resp" "$OUT/traced.resp" && ok "120 responses identical with and without the tracer" ||
	fail "responses differ: $(diff "$OUT/plain.resp" "$OUT/traced.resp" | head -3)"
expect "the same exit status after SIGTERM" "$traced_st" "$plain_st"
expect "the trace ends with runtime.shutdown" "$(tail -1 "$t" | jq -r .event)" runtime.shutdown
expect "30 ArgumentExceptions thrown by /fail, each with its summary" \
	"$(jqf "$t" 'select(.event=="exception.summary" and .exception.message=="bad request" and .rethrow==false) | .exception.id' | sort -u | grep -c .)" 30
expect "and each rethrown once by the framework, linked to the original" \
	"$(jqf "$t" 'select(.event=="exception.summary" and .exception.message=="bad request" and .rethrow_of != null) | .rethrow_of' | sort -u | grep -c .)" 30
expect "30 caught InvalidOperationExceptions, caught where they were thrown" \
	"$(jqf "$t" 'select(.event=="exception.summary" and .exception.message=="boom" and .outcome=="caught" and .caught_in==.thrown_in)' | grep -c .)" 30
expect "no exception went unhandled" "$(jqf "$t" 'select(.event=="exception.unhandled")' | grep -c .)" 0
expect "no tracer errors" "$(jqf "$t" 'select(.event=="trace.error")' | grep -c .)" 0
n=$(jqf "$t" 'select(.event=="thread.create")' | grep -c .)
[ "$n" -gt 5 ] && ok "$n managed threads created" || fail "only $n threads"
check_trace "$t"
finish
