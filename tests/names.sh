#!/bin/sh
# Where a throw came from, named right in modules of every kind, on .NET 10,
# 8 and 9: a type emitted with Reflection.Emit (no image: the tracer asks
# IMetaDataImport), an assembly loaded from bytes (an image in memory, no
# file), the same in a collectible context unloaded and loaded again three
# times (module ids the runtime may reuse), and an assembly from its file
# (names read from the mapped image, nested types joined by '+').
. "${top_srcdir:-.}/tests/lib.sh"
for v in $(test_runtimes); do
	n=".NET $v"
	prog=$(program_cmd Names "$v")
	t="$OUT/net$v-names.jsonl"
	trace "$t" -- $prog || fail "$n: traced Names exited $?"
	want=$(sed -n 's/^threw //p' "$t.stdout")
	expect "$n: the program threw six times" "$(echo "$want" | grep -c .)" 6
	got=$(jq -r 'select(.event == "exception.summary" and .exception.type == "System.InvalidOperationException" and (.rethrow | not))
		| "\(.exception.message) \(.thrown_in)"' "$(full "$t")")
	expect "$n: each throw is named as the program says" "$got" "$want"
	expect "$n: no trace.error" "$(jq -r 'select(.event == "trace.error") | .message' "$t")" ""
	check_trace "$t"
done
finish
