#!/bin/sh
# Single-file apps (issue 26): tests/programs/Verdicts published
# self-contained as one file for .NET 10, untrimmed and trimmed, has the
# same verdicts as its framework-dependent build.  Its runtime is linked
# into the executable (no libcoreclr.so is loaded), and an exception that
# crosses the runtime's native code (MethodInfo.Invoke, DynamicInvoke, a
# type initializer) is still no unhandled exception; a reverse P/Invoke and
# the end of Main still are.  (Activator.CreateInstance catches in managed
# code on .NET 10: no boundary, compared all the same.)
. "${top_srcdir:-.}/tests/lib.sh"

# boundaries first, then the ones that must stay unhandled, then a plain one
scenarios="invoke dynamic-invoke activator type-init type-init-again reverse-pinvoke reverse-delegate unhandled-main rethrow"
boundaries="invoke dynamic-invoke type-init type-init-again"

# what a trace says of its stories: each summary's verdict, and the
# exceptions reported unhandled
verdicts() {
	jq -s -c '[(.[] | select(.event == "exception.summary") | [.exception.id, .outcome, .boundary, .wrapped, .superseded_by, .rethrow_of]),
		{unhandled: [.[] | select(.event == "exception.unhandled") | .exception.id]}]' "$(full "$1")"
}

publish="--publish -r linux-x64 --self-contained -p:PublishSingleFile=true"
# shellcheck disable=SC2086 # publish is words
single=$(build_variant Verdicts singlefile $publish) || die "could not publish Verdicts as a single file"
# shellcheck disable=SC2086
trimmed=$(build_variant Verdicts singlefile-trimmed $publish -p:PublishTrimmed=true) || die "could not publish Verdicts trimmed"
dll=$(build_program Verdicts) || die "could not build Verdicts"
[ -x "$single/Verdicts" ] && [ ! -e "$single/libcoreclr.so" ] || die "$single: not a single-file build"

for s in $scenarios; do
	trace "$OUT/fd-$s.jsonl" -- dotnet "$dll" "$s"
	st=$?
	want="$(verdicts "$OUT/fd-$s.jsonl") $st"
	for b in single trimmed; do
		eval "dir=\$$b"
		t="$OUT/$b-$s.jsonl"
		trace "$t" -- "$dir/Verdicts" "$s"
		st=$?
		expect "$b $s: the verdicts and exit status of the framework-dependent build" "$(verdicts "$t") $st" "$want"
		check_trace "$t"
	done
done
# what the framework-dependent build says, said outright
for b in single trimmed; do
	for s in $boundaries; do
		t="$OUT/$b-$s.jsonl"
		expect "$b $s: no exception.unhandled" "$(jq -s '[.[] | select(.event == "exception.unhandled")] | length' "$t")" 0
		expect "$b $s: no summary says unhandled" \
			"$(jq -s '[.[] | select(.event == "exception.summary" and .outcome == "unhandled")] | length' "$t")" 0
		expect "$b $s: the first exception crossed a boundary" \
			"$(jq -s -c '[.[] | select(.event == "exception.summary" and .exception.id == 1) | .boundary]' "$(full "$t")")" '[true]'
	done
	expect "$b reverse-pinvoke: unhandled in the callback" \
		"$(jq -s -c '[.[] | select(.event == "exception.unhandled") | .thrown_in]' "$OUT/$b-reverse-pinvoke.jsonl")" \
		'["Verdicts.Program.Compare"]'
done
finish
