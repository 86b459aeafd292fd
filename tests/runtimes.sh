#!/bin/bash
# The runtime matrix (RT_MATRIX in lib.sh): each test program runs on the
# runtime of its row (.NET 10 from the SDK, 8 and 9 self-contained from the
# NuGet runtime packs, 11 and 10's newest patch from runtime roots assembled
# from the packs), runtime.init says which one, and the exception scenarios,
# all in one process and then each fatal one, end with the same outcomes on
# every runtime.
. "$(dirname "$0")/lib.sh"

# every non-fatal scenario of tests/programs/Scenarios, run in one process:
# what one scenario leaves behind (a stale nesting) shows in the next
NONFATAL="same up3 filters finally in-filter in-finally in-catch caught-in-catch rethrow throw-ex async nullref divzero"

# expected SCENARIO: its outcomes in order (the same on .NET 8, 9 and 10)
expected() {
	case $1 in
	same | up3 | filters | finally | nullref | divzero) echo "caught," ;;
	in-filter) echo "swallowed,caught," ;;
	in-finally | in-catch) echo "superseded,caught," ;;
	rethrow | throw-ex) echo "rethrown,caught," ;;
	caught-in-catch | async) echo "caught,caught," ;;
	unhandled-main | unhandled-thread) echo "caught,unhandled," ;;
	esac
}

# outcomes FILE: the outcomes of the summaries, in record order
outcomes() { jq -r 'select(.event == "exception.summary") | .outcome' "$1" | tr '\n' ','; }

runtimes=$(test_runtimes)
[ "${CI:-}" = true ] && expect "CI: every runtime of the matrix is tested" "$runtimes" "$RT_KEYS"

for v in $runtimes; do
	n=".NET $v"
	prog=$(program_cmd Scenarios "$v")
	want=""
	for s in $NONFATAL; do want="$want$(expected "$s")"; done
	f="$OUT/net$v-all.jsonl"
	trace "$f" -- $prog $NONFATAL
	expect "$n all non-fatal scenarios in one process: exit status" "$?" 0
	expect "$n all non-fatal scenarios: every one finished" "$(grep -c '^done ' "$f.stdout")" "$(echo $NONFATAL | wc -w)"
	expect "$n all non-fatal scenarios: outcomes in order" "$(outcomes "$f")" "$want"
	expect "$n all non-fatal scenarios: no exception.unhandled" "$(jqf "$f" 'select(.event == "exception.unhandled") | .exception.type')" ""
	check_trace "$f"

	# the runtime that ran is the one built for
	init=$(head -1 "$f")
	expect "$n: runtime.init names the major version" "$(echo "$init" | jq .runtime.major)" "$(rt_major "$v")"
	[ "$v" != 10 ] && echo "$n: runtime pack $(pack_version "$v") from the NuGet source ($(cut -d' ' -f2 "$RT_DIR/net$v.version") tries; log in $RT_DIR/net$v.log)"
	case $(rt_how "$v") in
	installed) what="the installed runtime ran" ;;
	sc) what="the runtime pack it was built with ran (self-contained)" ;;
	root) what="the runtime root's runtime ran (the .NET 10 build rolled forward)" ;;
	esac
	expect "$n: $what" "$(echo "$init" | jq -r .runtime.version)" "$(rt_version "$v")"
	# .NET 8 has the legacy (C++) exception handling; 9 and 10 the managed one
	expect "$n: legacy exception handling detected" "$(echo "$init" | jq .runtime.legacy_eh)" \
		"$([ "$v" = 8 ] && echo true || echo false)"

	for s in unhandled-main unhandled-thread; do
		f="$OUT/net$v-$s.jsonl"
		trace "$f" -- $prog "$s"
		# SIGABRT: the runtime aborts on an unhandled exception
		expect "$n $s: exit status" "$?" 134
		expect "$n $s: outcomes" "$(outcomes "$f")" "$(expected "$s")"
		expect "$n $s: exception.unhandled names the throwing method" \
			"$(jqf "$f" 'select(.event == "exception.unhandled") | .thrown_in')" '"Scenarios.Program.Doomed"'
		check_trace "$f"
	done
	echo "$n ($(echo "$init" | jq -r .runtime.version)): $(outcomes "$OUT/net$v-all.jsonl") | $(outcomes "$OUT/net$v-unhandled-main.jsonl") | $(outcomes "$OUT/net$v-unhandled-thread.jsonl")"
done

# the fallback itself (it runs only when the NuGet source misbehaves): a
# first choice the source does not hold, tried twice, then a version it
# lists; in a scratch directory, not the build tree's choice
if echo " $runtimes " | grep -q ' 8 '; then
	(
		RT_DIR="$OUT/fallback"
		mkdir -p "$RT_DIR"
		CLRTRACE_TEST_PACK_8=8.0.999 _rt_resolve 8
	)
	got=$(cat "$OUT/fallback/net8.version" 2>/dev/null)
	echo "fallback: $got ($(grep '^== try' "$OUT/fallback/net8.log" | tr '\n' ' '))"
	case $got in
	8.0.999*) fail "fallback: kept the version the source lacks" ;;
	8.0.*) ok "fallback: a .NET 8 pack the source holds (${got% *})" ;;
	*) fail "fallback: no .NET 8 pack: $(cat "$OUT/fallback/net8.failed" 2>/dev/null)" ;;
	esac
	expect "fallback: the pinned version was tried twice first" "$(grep -c '^== try [12]: 8.0.999$' "$OUT/fallback/net8.log")" 2
	grep -q 'error NU1102' "$OUT/fallback/net8.log" && ok "fallback: the source said NU1102 for 8.0.999" ||
		fail "fallback: no NU1102 in $OUT/fallback/net8.log"
fi

finish
