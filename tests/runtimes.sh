#!/bin/sh
# The same exception scenarios on .NET 8 (legacy exception handling: no
# second pass for an unhandled exception) and .NET 9, built self-contained
# from the runtime packs of the NuGet feed; skipped when the feed lacks them.
. "${top_srcdir:-.}/tests/lib.sh"

# expected outcomes of each scenario's exceptions, in order (as on .NET 10)
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

ran=0
for v in 8 9; do
	dir="$top_builddir/tests/out/bin/Scenarios-net$v"
	src="$top_builddir/tests/out/src/net$v"
	if [ ! -x "$dir/Scenarios" ]; then
		rm -rf "$src" && mkdir -p "$src"
		cp -r "$top_srcdir/tests/programs/Scenarios" "$top_srcdir/tests/programs/Directory.Build.props" "$src/"
		chmod -R u+w "$src"
		# no NuGet.config: the runtime pack comes from the machine's feed
		if ! dotnet publish -c Release -r linux-x64 --self-contained -p:TestTargetFramework=net$v.0 \
			-o "$dir" "$src/Scenarios/Scenarios.csproj" >"$src/publish.log" 2>&1; then
			echo "note: no .NET $v runtime pack from the NuGet feed ($(grep -m1 -o 'error [A-Z0-9]*:.*' "$src/publish.log" | cut -c1-120))"
			continue
		fi
	fi
	ran=$((ran + 1))
	for s in same up3 filters finally in-filter in-finally in-catch caught-in-catch rethrow throw-ex async nullref divzero unhandled-main unhandled-thread; do
		t="$OUT/net$v-$s.jsonl"
		trace "$t" -- "$dir/Scenarios" "$s"
		st=$?
		want_st=0
		case $s in unhandled-*) want_st=134 ;; esac
		expect ".NET $v $s: exit status" "$st" "$want_st"
		expect ".NET $v $s: outcomes" "$(jqf "$t" 'select(.event=="exception.summary") | .outcome' | tr -d '"' | tr '\n' ',')" "$(expected "$s")"
		check_trace "$t"
	done
	expect ".NET $v: runtime.init names the major version" "$(head -1 "$OUT/net$v-same.jsonl" | jq .runtime.major)" "$v"
	expect ".NET $v: legacy exception handling detected" "$(head -1 "$OUT/net$v-same.jsonl" | jq .runtime.legacy_eh)" \
		"$([ "$v" = 8 ] && echo true || echo false)"
	expect ".NET $v unhandled-thread: exception.unhandled names the throwing method" \
		"$(jqf "$OUT/net$v-unhandled-thread.jsonl" 'select(.event=="exception.unhandled") | .thrown_in')" '"Scenarios.Program.Doomed"'
done
[ "$ran" -gt 0 ] || skip "neither .NET 8 nor .NET 9 could be built here"
finish
