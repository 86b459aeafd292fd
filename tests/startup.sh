#!/bin/sh
# clrtrace startup on real programs, on .NET 10, 8 and 11, with ReadyToRun
# on and off (DOTNET_ReadyToRun=0), checked against the runtime's own
# counts.  tests/programs/Startup takes, at the end of its work,
# AppDomain.GetAssemblies().Length, GC.CollectionCount(0) and
# JitInfo.GetCompiledMethodCount(false), then calls ClrtraceReady (the
# documented mark) and prints them.  The report's figures "before ready"
# must match:
#   - modules loaded: equal (one module per assembly; no assembly loads
#     between the call and the mark);
#   - GCs: equal (every collection collects generation 0);
#   - methods compiled: within 2 of the runtime's count.  The runtime
#     counts a compile as it ends, the profiler's JITCompilationFinished
#     comes just after: a background tier-1 compile that ends between the
#     count and the mark can fall on either side.  Dynamic methods and IL
#     stubs are in both (DynamicMethodJITCompilation callbacks).
# tests/programs/StartupWeb prints the wall clock when
# IHostApplicationLifetime.ApplicationStarted fires; run --ready matches
# that line: its startup.ready must come 0 to 500 ms after the program's
# own time (the line's way through Console, the pipe and clrtrace run; a
# bound for a shared, loaded machine, not a timing figure).  Without an
# option the service is ready by Hosting's ServerReady, written before
# ApplicationStarted fires: 0 to 500 ms before the program's time, and
# the report takes it with --ready too (the earliest).  With its server
# made to serve a request of its own before its start returns, ready by
# that request: after the program sent it.
# The diff of ReadyToRun on and off shows more methods compiled when off.
# With category tiers, each compile's tier (the runtime's MethodLoad
# events) is checked against what the program and the settings make the
# runtime do: see the comments below.
. "${top_srcdir:-.}/tests/lib.sh"
command -v curl >/dev/null 2>&1 || skip "curl is needed (run setup.sh)"

# report TRACE: the report as JSON (fails the test when there is none)
report() {
	"$CLRTRACE" startup --json "$1" 2>"$1.report.err" || fail "startup $1: $(cat "$1.report.err")"
}

# web T READY MODE: trace StartupWeb ($cmd) to T with run's --ready option
# READY (words, or ""), its second argument MODE; once it has started, one
# request, answered, then SIGTERM.  Its report into $j, with ready_ns (the
# ready phase's wall-clock time) added.
web() {
	local url rpid svc exec_ns
	j=
	url="http://127.0.0.1:$(free_port)"
	rm -f "$1"
	# shellcheck disable=SC2086 # READY and cmd are words
	timeout -k 10 300 "$CLRTRACE" run -e +startup $2 -o "file:$1" -- $cmd "$url" $3 >"$1.stdout" 2>"$1.stderr" &
	rpid=$!
	for _ in $(seq 300); do grep -q '^started' "$1.stdout" && break; sleep 0.1; done
	expect "$n $(basename "$1" .jsonl): answers" "$(curl -s -m 10 "$url/")" hello
	svc=$(pgrep -P "$(pgrep -P $rpid)")
	[ -n "$svc" ] && kill -TERM $svc
	wait $rpid
	exec_ns=$(jq -r 'select(.event == "startup.config") | .exec_ns' "$1")
	j=$(report "$1" | jq --argjson e "${exec_ns:-0}" \
		'. + {ready_ns: ($e + (.phases[] | select(.name == "ready") | .from_exec_ns // -$e))}')
	[ -n "$j" ]
}

# bad input: one line and a status, nothing else
"$CLRTRACE" run --ready '(' -- true >"$OUT/badre.out" 2>"$OUT/badre.err"
expect "run --ready with a bad regex: status 2, one line" "$? $(wc -l <"$OUT/badre.err") $(wc -c <"$OUT/badre.out")" "2 1 0"
echo '{"v":1,"seq":1,"ts":1,"pid":1,"tid":1,"thread":null,"event":"thread.create","phase":"instant","span":null,"parent":null,"depth":0,"target":{"id":"0x1"}}' >"$OUT/notrace.jsonl"
"$CLRTRACE" startup "$OUT/notrace.jsonl" >"$OUT/notrace.out" 2>"$OUT/notrace.err"
expect "startup of a trace with no runtime.init: status 1, one line" \
	"$? $(wc -l <"$OUT/notrace.err") $(wc -c <"$OUT/notrace.out")" "1 1 0"

for v in $(test_runtimes "10 8 11"); do
	n=".NET $v"
	cmd=$(program_cmd Startup "$v") || continue
	for r2r in 1 0; do
		t="$OUT/net$v-r2r$r2r.jsonl"
		if [ $r2r = 1 ]; then
			trace "$t" -e +startup,+tiers -- $cmd || fail "$n r2r=$r2r: exit status $?"
		else
			# and two settings that runtimeconfig.json sets too: the
			# runtime's own (TieredPGO) takes the variable, the managed
			# switch (invariant globalization) the property
			DOTNET_ReadyToRun=0 DOTNET_TieredPGO=1 DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=0 \
				trace "$t" -e +startup,+tiers -- $cmd || fail "$n r2r=$r2r: exit status $?"
		fi
		"$CLRTRACE" check "$t" >"$t.check" 2>&1 && ok "$n r2r=$r2r: clrtrace check passes" ||
			fail "$n r2r=$r2r: clrtrace check: $(head -3 "$t.check")"
		if [ $r2r = 1 ]; then
			# the same program traced without the category: refused in one line
			trace "$t.plain" -- $cmd
			"$CLRTRACE" startup "$t.plain" >/dev/null 2>"$t.plain.err"
			expect "$n: a trace without the startup category is refused in one line" \
				"$? $(wc -l <"$t.plain.err")" "1 1"
			# without category tiers: no tier, and the report says how
			trace "$t.notiers" -e +startup -- $cmd
			expect "$n: without category tiers no compile has a tier, and the report says how to get them" \
				"$(jq -s -c '[.[] | select(.event == "startup.jit")] | [length > 0, all(has("tier") | not)]' "$t.notiers") $("$CLRTRACE" startup "$t.notiers" | grep -c 'trace with -e +startup,+tiers')" \
				"[true,true] 1"
		fi
		line=$(grep '^counts ' "$t.stdout")
		[ -n "$line" ] || { fail "$n r2r=$r2r: the program printed no counts: $(head -c 300 "$t.stderr")"; continue; }
		asm=$(echo "$line" | awk '{print $3}')
		jit=$(echo "$line" | awk '{print $5}')
		gc0=$(echo "$line" | awk '{print $7}')
		j=$(report "$t")
		got=$(echo "$j" | jq -r '[.until, .ready_by, .modules_before_ready, .in_the_way.gcs.count, .jit.methods_before_ready] | @tsv')
		set -- $got
		expect "$n r2r=$r2r: ready at the program's mark" "$1 $2" "ready mark"
		expect "$n r2r=$r2r: modules before ready = AppDomain.GetAssemblies" "$3" "$asm"
		expect "$n r2r=$r2r: GCs before ready = GC.CollectionCount(0)" "$4" "$gc0"
		d=$(($5 - jit))
		[ "${d#-}" -le 2 ] && ok "$n r2r=$r2r: $5 methods compiled before ready, JitInfo says $jit" ||
			fail "$n r2r=$r2r: $5 methods compiled before ready, JitInfo says $jit"
		expect "$n r2r=$r2r: the probe's exception is counted before ready" \
			"$(echo "$j" | jq '.in_the_way.exceptions.types["System.IO.FileNotFoundException"]')" 1
		expect "$n r2r=$r2r: the cost of looking counts every startup.jit and startup.module record" \
			"$(echo "$j" | jq -c '[.cost.jit_records, .cost.module_records, .cost.own_ns > 0]')" \
			"[$(grep -c '"event":"startup.jit"' "$t"),$(grep -c '"event":"startup.module"' "$t"),true]"
		expect "$n r2r=$r2r: the dynamic method is counted" \
			"$(echo "$j" | jq '.jit.dynamic >= 1')" true
		# the list is the ten that took longest: the program's own is among
		# them when the framework's are precompiled
		[ $r2r = 1 ] && expect "$n r2r=$r2r: the type initializer is listed" \
			"$(echo "$j" | jq '[.jit.type_initializers.list[].function] | index("Config..cctor") != null')" true
		expect "$n r2r=$r2r: type initializers counted" \
			"$(echo "$j" | jq '.jit.type_initializers.count >= 1')" true
		expect "$n r2r=$r2r: the program is IL-only on the start-up path" \
			"$(echo "$j" | jq -r '[.jit.il_only_on_startup_path[].module] | index("Startup.dll") != null')" true
		expect "$n r2r=$r2r: CoreLib's ReadyToRun code is seen in its image" \
			"$(echo "$j" | jq -r '.jit.by_module[] | select(.module == "System.Private.CoreLib.dll") | .ready_to_run')" true
		want="0 runtimeconfig"
		[ $r2r = 0 ] && want="1 environment"
		expect "$n r2r=$r2r: TieredPGO's setting and its source" \
			"$(echo "$j" | jq -r '.configuration[] | select(.key == "tiered_pgo") | "\(.value) \(.source)"')" "$want"
		expect "$n r2r=$r2r: invariant globalization comes from runtimeconfig.json" \
			"$(echo "$j" | jq -r '.configuration[] | select(.key == "invariant_globalization") | "\(.value) \(.source)"')" "1 runtimeconfig"
		want="1 default"
		[ $r2r = 0 ] && want="0 environment"
		expect "$n r2r=$r2r: ReadyToRun's setting and its source" \
			"$(echo "$j" | jq -r '.configuration[] | select(.key == "ready_to_run") | "\(.value) \(.source)"')" "$want"
		expect "$n r2r=$r2r: the phases are in order" \
			"$(echo "$j" | jq '[.phases[] | .from_exec_ns | select(. != null)] | . == sort and length == 7')" true
		# tiers, from the runtime's MethodLoad events: every compile up to
		# the mark has one; the program is built without optimization
		# (tests/programs/Directory.Build.props), so the runtime compiles
		# its methods MinOptJitted, tiering or not; the dynamic method is
		# compiled optimized at once (the runtime does not tier it)
		expect "$n r2r=$r2r: every compile up to the mark has a tier" \
			"$(jq -s '[.[] | select(.event == "startup.jit")] | (map(.function) | index("Program.ClrtraceReady")) as $i |
				[.[0:$i + 1][] | select(.tier == null)] | length' "$t")" 0
		expect "$n r2r=$r2r: startup.cost counts the MethodLoad events that gave a record its tier" \
			"$(jq -s -c '([.[] | select(.event == "startup.jit" and .tier != null)] | length) as $k |
				[.[] | select(.event == "startup.cost") | [.tiers_matched == $k, .tier_events >= .tiers_matched, $k > 0]][0]' "$t")" \
			"[true,true,true]"
		expect "$n r2r=$r2r: Main, the type initializer and the mark are minopts, the dynamic method optimized" \
			"$(jq -r 'select(.event == "startup.jit" and (.function == "Program.Main" or .function == "Config..cctor" or
				.function == "Program.ClrtraceReady" or .function == "Twice")) | "\(.function)=\(.tier)"' "$t" | sort | tr '\n' ' ')" \
			"Config..cctor=minopts Program.ClrtraceReady=minopts Program.Main=minopts Twice=optimized "
		expect "$n r2r=$r2r: view shows Main's compile with its tier" \
			"$("$CLRTRACE" view "$t" 2>/dev/null | grep -c 'startup\.jit Program\.Main \[minopts\]')" 1
		expect "$n r2r=$r2r: the report's by_tier counts every compile" \
			"$(echo "$j" | jq '([.jit.by_tier[].methods] | add) == .jit.methods_compiled')" true
		if [ $r2r = 0 ]; then
			# CoreLib's code is not precompiled: its methods are compiled
			# quick-JITted (tier 0) first, on the critical path
			expect "$n r2r=0: CoreLib's methods compiled at tier 0 on the critical path" \
				"$(jq -s '[.[] | select(.event == "startup.jit" and .tier == "tier0" and (.function | startswith("System.")))] | length > 500' "$t")" true
		fi
		"$CLRTRACE" startup "$t" >"$t.report" || fail "$n r2r=$r2r: the text report failed"
		grep -q 'IL-only assemblies on the start-up path' "$t.report" && grep -q 'publish with ReadyToRun' "$t.report" &&
			ok "$n r2r=$r2r: the text report names the fix" || fail "$n r2r=$r2r: no fix in $(head -5 "$t.report")"
	done
	# tiered compilation off: the runtime compiles every method once,
	# fully optimized (the program's own: minopts, as it is built)
	t="$OUT/net$v-tc0.jsonl"
	DOTNET_TieredCompilation=0 trace "$t" -e +startup,+tiers -- $cmd || fail "$n tc=0: exit status $?"
	expect "$n tc=0: every compile is optimized (the program's own minopts), none recompiled" \
		"$(jq -s -c '[.[] | select(.event == "startup.jit" and .tier != null)] | [(map(.tier) | unique),
			(map(select(.nth > 1)) | length)]' "$t")" '[["minopts","optimized"],0]'
	expect "$n tc=0: the report counts no background work before ready" \
		"$("$CLRTRACE" startup --json "$t" | jq '.jit.by_tier | has("tier0") or has("tier1")')" false
	diff=$("$CLRTRACE" startup --json "$OUT/net$v-r2r1.jsonl" "$OUT/net$v-r2r0.jsonl")
	expect "$n: the diff of ReadyToRun on and off shows more tier-0 compiles when off, the program's minopts unchanged" \
		"$(echo "$diff" | jq -c '[.jit.by_tier.tier0.b > .jit.by_tier.tier0.a + 500, .jit.by_tier.minopts.a == .jit.by_tier.minopts.b]')" '[true,true]'
	expect "$n: the diff of ReadyToRun on and off shows more methods compiled when off" \
		"$(echo "$diff" | jq '.jit.methods_compiled.b > .jit.methods_compiled.a and (.configuration | map(.label) | index("ReadyToRun") != null)')" true
	expect "$n: ReadyToRun on and off load the same modules, their images unchanged" \
		"$(echo "$diff" | jq -c '[.modules.a, .modules.b, .modules.ready_to_run_changed]')" '[[],[],[]]'

	# the service, three ways
	cmd=$(program_cmd StartupWeb "$v") || continue
	web "$OUT/net$v-web.jsonl" "--ready ^started" "" || continue
	t="$OUT/net$v-web.jsonl"
	started=$(sed -n 's/^started \([0-9]*\).*/\1/p' "$t.stdout")
	line=$(jq -r 'select(.event == "startup.ready" and .how == "stdout") | .ready_ns' "$t")
	if [ -n "$started" ] && [ -n "$line" ]; then
		d=$(( (line - started) / 1000000 ))
		[ "$d" -ge 0 ] && [ "$d" -le 500 ] && ok "$n web: the ready line $d ms after ApplicationStarted's own time" ||
			fail "$n web: the ready line $d ms after ApplicationStarted's own time"
	else
		fail "$n web: no ready line (started '$started', ready line '$line')"
	fi
	# the server listened before ApplicationStarted fired, so before its line
	expect "$n web: with --ready, ready by the server, before the line" \
		"$(echo "$j" | jq -r --argjson line "${line:-0}" '"\(.until) \(.ready_by) \(.ready_ns <= $line)"')" "ready server true"
	expect "$n web: server GC from runtimeconfig.json" \
		"$(echo "$j" | jq -r '.configuration[] | select(.key == "gc_server") | "\(.value) \(.source)"')" "1 runtimeconfig"
	expect "$n web: JIT compiles before ready on the critical path" \
		"$(echo "$j" | jq '.jit.critical.methods > 0 and .jit.critical.methods <= .jit.methods_compiled')" true

	# no option: ready when Kestrel listens (Hosting's ServerReady), which
	# is before ApplicationStarted fires: 0 to 500 ms before its time; the
	# request served after it is no second ready
	web "$OUT/net$v-server.jsonl" "" "" || continue
	t="$OUT/net$v-server.jsonl"
	started=$(sed -n 's/^started \([0-9]*\).*/\1/p' "$t.stdout")
	expect "$n server: one startup.ready, by the server" \
		"$(jq -r 'select(.event == "startup.ready") | .how' "$t" | tr '\n' ' ')" "server "
	expect "$n server: ready by the server" "$(echo "$j" | jq -r '"\(.until) \(.ready_by)"')" "ready server"
	d=$(echo "$j" | jq -r --argjson s "${started:-0}" '(($s - .ready_ns) / 1000000 | floor)')
	[ -n "$started" ] && [ "$d" -ge 0 ] && [ "$d" -le 500 ] &&
		ok "$n server: ready $d ms before ApplicationStarted's own time" ||
		fail "$n server: ready $d ms before ApplicationStarted's own time (started '$started')"

	# a request served before the server's start returned: ready by it,
	# after the program sent it, at most 500 ms after ApplicationStarted
	web "$OUT/net$v-request.jsonl" "" request-first || continue
	t="$OUT/net$v-request.jsonl"
	started=$(sed -n 's/^started \([0-9]*\).*/\1/p' "$t.stdout")
	sent=$(sed -n 's/^requesting \([0-9]*\).*/\1/p' "$t.stdout")
	expect "$n request: its own request answered" "$(grep '^answered' "$t.stdout")" "answered hello"
	expect "$n request: one startup.ready, by the request" \
		"$(jq -r 'select(.event == "startup.ready") | .how' "$t" | tr '\n' ' ')" "request "
	expect "$n request: ready by the request, after it was sent, at most 500 ms after ApplicationStarted" \
		"$(echo "$j" | jq -r --argjson s "${started:-0}" --argjson q "${sent:-0}" \
			'"\(.until) \(.ready_by) \(.ready_ns >= $q) \(.ready_ns <= $s + 500000000)"')" "ready request true true"
done
finish
