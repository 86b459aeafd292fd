#!/bin/bash
# The stacks category (-e +stacks) on tests/programs/Lines: the managed
# stack at each throw, resolved to file and line by `view`, `stats` and
# `export` from the PDBs (beside the assembly on 8, 9 and 10; embedded on
# 10; deleted: the method and IL offset, no error; another build's, or one
# with the right id but other content: no lines, the latter said).  The throw site of every "MARK:name"
# comment must come out at that comment's line, and each frame's IL offset
# must be the one the runtime itself reports.  With `Lines more`: a deep
# recursion keeps CLRTRACE_STACK_DEPTH frames and counts the rest, a throw
# in a dynamic method has a stack that begins at its caller (the runtime's
# walk skips methods without metadata), at the calling line, a null
# dereference (the frame's IP is the faulting instruction) is at its line, the
# inner chains of TargetInvocationException, AggregateException and a
# 10-deep chain are in exception.throw (cut at 8, the cut said).
. "$(dirname "$0")/lib.sh"

SRC="$top_srcdir/tests/programs/Lines"

# the expected "file:line" of every MARK site, and of one STACK marker
expected=$(grep -n -o 'MARK:[a-z]*' "$SRC"/*.cs | sed -E 's|^.*/([^/:]*):([0-9]+):MARK:.*$|\1:\2|' | sort)
[ "$(echo "$expected" | wc -l)" -ge 8 ] || die "the markers of Lines were not found: $expected"
stack_mark() { grep -n -o "STACK:$1\$" "$SRC"/*.cs | sed -E 's|^.*/([^/:]*):([0-9]+):.*$|\1:\2|'; }

# view_sites TRACE: "file:line" of the first frame with a line under each
# throw (not AggregateException's: Task.Wait throws it, from no MARK line)
view_sites() {
	"$CLRTRACE" view --throws "$1" 2>&1 | awk '
		/\* exception\.throw / { t = 1; agg = /AggregateException/; next }
		t && $1 == "at" {
			if (match($0, / in .*:line [0-9]+$/)) {
				s = substr($0, RSTART + 4); sub(/:line /, ":", s); sub(/.*\//, "", s)
				if (!agg) print s
				t = 0
			}
			next
		}
		{ t = 0 }' | sort
}

# stats_sites TRACE: the same from the throw sites of `stats`
stats_sites() {
	"$CLRTRACE" stats "$1" 2>&1 | sed -n '/^Throw sites, by type and line:/,/^$/p' | grep -v AggregateException |
		sed -n -E 's|^ *[0-9]+  .* in (.*/)?([^/]*):line ([0-9]+) \(.*$|\2:\3|p' | sort
}

# export_sites TRACE: the same from `export --format chrome`: the first
# frame with a line of each throw's args.stack, and its args.site
export_sites() {
	"$CLRTRACE" export --format chrome "$1" | jq -r '.traceEvents[]
		| select(.name == "exception.throw" and .args.exception.type != "System.AggregateException")
		| (.args.stack | map(select(.line)) | first) as $f | select($f)
		| ($f.file | sub(".*/"; "")) + ":\($f.line)"
		  + (if (.args.site | endswith(" in \($f.file):line \($f.line)")) then "" else " (args.site: \(.args.site))" end)' | sort
}

# first_frames TRACE: "token il" of the first frame of every throw but
# AggregateException's, as the runtime printed them ("0x%08x il")
first_frames() {
	jq -r 'select(.event == "exception.throw" and .exception.type != "System.AggregateException")
	       | .stack[0] | "\(.token) \(.il_offset)"' "$1" | while read -r tok il; do
		printf '0x%08x %s\n' "$tok" "$il"
	done | sort
}

# check_sites WHAT TRACE: the lines of view and stats are the MARK lines,
# the IL offsets the runtime's
check_sites() {
	local what=$1 f=$2
	check_trace "$f"
	expect "$what: view puts every throw at its MARK line" "$(view_sites "$f")" "$expected"
	expect "$what: stats groups the throws by their MARK lines" "$(stats_sites "$f")" "$expected"
	expect "$what: export puts every throw at its MARK line (args.stack, args.site)" "$(export_sites "$f")" "$expected"
	expect "$what: each throw's method token and IL offset are the runtime's" "$(first_frames "$f")" \
		"$(awk '{ print $2, $3 }' "$f.stdout" | grep '^0x' | sort)"
}

# jqf TRACE FILTER: FILTER over the exception.throw of TYPE... (one line)
throw_of() { jq -c --arg t "$2" "select(.event == \"exception.throw\" and .exception.type == \$t) | $3" "$1" | head -1; }

for v in $(test_runtimes); do
	cmd=$(program_cmd Lines "$v") || die "could not build Lines for .NET $v"
	f="$OUT/lines-$v.jsonl"
	# shellcheck disable=SC2086 # cmd is words
	trace "$f" -e +stacks $cmd || fail ".NET $v: run failed: $(cat "$f.stderr")"
	check_sites ".NET $v, PDB beside" "$f"
	# async, lambda, generic and nested-type frames, named
	names=$(jq -r 'select(.event == "exception.throw") | .stack[0].function' "$f" | sort | tr '\n' ' ')
	for want in 'Lines.Program+<Async>d__4.MoveNext' 'Lines.Program.Generic' 'Lines.Program+Nested+Inner.Fail' \
		'Lines.Program+<>c.<Main>b__'; do
		case " $names" in
		*" $want"*) ok ".NET $v: a frame $want" ;;
		*) fail ".NET $v: no frame $want in: $names" ;;
		esac
	done
	# the names a .NET developer reads: the state machine as its async
	# method (its caller, the async machinery, says async), the lambda as
	# the method that holds it
	"$CLRTRACE" view --throws --color=never "$f" >"$f.view" 2>&1
	expect ".NET $v: view says the async method's frame as Lines.Program.Async() [async]" \
		"$(grep -c -E '^ +at Lines\.Program\.Async\(\) \[async\] in .*Program\.cs:line [0-9]+$' "$f.view")" 1
	expect ".NET $v: view says the async method's own catch as Lines.Program.Async [async]" \
		"$(grep -c 'exception\.summary #[0-9]* System\.TimeoutException caught, thrown in Lines\.Program\.Async \[async\], caught in Lines\.Program\.Async \[async\];' "$f.view")" 1
	n=$(grep -c -E '^ +at Lines\.Program\.Main\(\) \[lambda\] in .*Program\.cs:line [0-9]+$' "$f.view")
	if [ "$n" -ge 1 ]; then ok ".NET $v: view says a lambda's frame as Lines.Program.Main() [lambda]"
	else fail ".NET $v: no lambda frame said as Lines.Program.Main() [lambda]"; fi
	expect ".NET $v: no compiler-generated name left in view's frames" \
		"$(grep -E '^ +at ' "$f.view" | grep -c -E '<|>d__|b__|DisplayClass')" 0
	expect ".NET $v: each module once per record, with its MVID" \
		"$(jq -r 'select(.stack) | .modules | (map(.path) | unique | length) == length and all(.mvid != null)' "$f" | sort -u)" true
	expect ".NET $v: the summary carries the throw's stack" \
		"$(jq -s -r '[.[] | select(.event == "exception.throw")] as $t | [.[] | select(.event == "exception.summary")]
			| map(. as $s | ($t[] | select(.exception.id == $s.exception.id) | .stack) == $s.stack) | all' "$(full "$f")")" true

	# Lines more: depth, a dynamic method, wrappers, a long chain
	f="$OUT/more-$v.jsonl"
	# shellcheck disable=SC2086
	trace "$f" -e +stacks $cmd more || fail ".NET $v: run more failed: $(cat "$f.stderr")"
	check_trace "$f"
	expect ".NET $v: deep recursion: 64 frames kept, the rest counted" \
		"$(throw_of "$f" System.ApplicationException '[(.stack | length), (.stack_cut >= 140)]')" "[64,true]"
	# a throw inside an Expression.Compile delegate: the runtime's walk
	# skips methods without metadata (no callback, not even a native run),
	# so the stack begins at the caller, at the line that called it
	expect ".NET $v: a throw in a dynamic method: the first frame is its caller's, at the calling line" \
		"$("$CLRTRACE" export --format chrome "$f" | jq -r '.traceEvents[] | select(.name == "exception.throw"
			and .args.exception.type == "System.InvalidTimeZoneException") | .args.stack[0]
			| "\(.function | test("^Lines\\.Program\\+<>c__DisplayClass[0-9_]*\\.<More>b__")) \(.token > 0) \(.file | sub(".*/"; "")):\(.line)"')" \
		"true true $(stack_mark dynamic)"
	expect ".NET $v: a throw in a dynamic method: no frame without a token but the trailing [native]" \
		"$(throw_of "$f" System.InvalidTimeZoneException '[.stack[] | select(.token == null) | .function]')" '["[native]"]'
	expect ".NET $v: TargetInvocationException says what it wraps" \
		"$(throw_of "$f" System.Reflection.TargetInvocationException '.inner')" \
		'[{"type":"System.DivideByZeroException","message":"by reflection"}]'
	# (its InnerException is the first of the two to fault)
	expect ".NET $v: AggregateException says what it wraps" \
		"$(throw_of "$f" System.AggregateException '.inner[0].type | IN("System.OverflowException", "System.RankException")')" true
	expect ".NET $v: a 10-deep chain: 8 kept, 2 cut" \
		"$(throw_of "$f" System.InvalidProgramException '[(.inner | map(.message) | join(",")), .inner_cut]')" \
		'["inner 1,inner 2,inner 3,inner 4,inner 5,inner 6,inner 7,inner 8",2]'
	expect ".NET $v: a hardware fault (null dereference) is at its line" \
		"$(view_sites "$f" | grep -x "$(stack_mark null)")" "$(stack_mark null)"
	expect ".NET $v: the wrapped exception's throw is at its line" \
		"$(view_sites "$f" | grep -x "$(stack_mark target)")" "$(stack_mark target)"
	[ "$v" = 10 ] && portable=$(echo "$cmd" | awk '{ print $NF }')
done
[ -n "${portable:-}" ] || die "no .NET 10 build of Lines"

# the depth is CLRTRACE_STACK_DEPTH's
f="$OUT/depth.jsonl"
CLRTRACE_STACK_DEPTH=10 trace "$f" -e +stacks dotnet "$portable" more || fail "depth 10: run failed"
expect "CLRTRACE_STACK_DEPTH=10: 10 frames kept" \
	"$(throw_of "$f" System.ApplicationException '[(.stack | length), (.stack_cut >= 190)]')" "[10,true]"

# off by default: no stack anywhere; the inner chain is there
f="$OUT/default.jsonl"
trace "$f" dotnet "$portable" more || fail "default categories: run failed"
expect "default categories: no stack" "$(jq -r 'select(.stack or .modules) | .event' "$f" | sort -u)" ""
expect "default categories: the inner chain" "$(throw_of "$f" System.InvalidProgramException '.inner | length')" 8

# the PDB embedded (a build of its own, shared with tests/pdb.sh)
emb=$(build_variant Lines embedded -p:DebugType=embedded) || exit 1
[ ! -e "$emb/Lines.pdb" ] || fail "embedded: a Lines.pdb beside it"
f="$OUT/embedded.jsonl"
trace "$f" -e +stacks dotnet "$emb/Lines.dll" || fail "embedded: run failed"
check_sites "embedded PDB" "$f"

# another build's MVID in the trace (the assembly was rebuilt since): no
# lines rather than wrong ones
f="$OUT/lines-10.jsonl"
jq -c 'if .modules then .modules |= map(.mvid = "00000000-1111-2222-3333-444444444444") else . end' "$f" >"$OUT/stale.jsonl"
expect "another build's MVID: no lines" "$(view_sites "$OUT/stale.jsonl")" ""
expect "another build's MVID: no lines in export" "$(export_sites "$OUT/stale.jsonl")" ""
want=$(awk '$2 ~ /^0x/ && $1 == "direct" { printf "at Lines.Program.Direct() IL_%04x", $3 }' "$f.stdout")
expect "another build's MVID: the method and IL offset" \
	"$("$CLRTRACE" view --throws "$OUT/stale.jsonl" 2>&1 | grep -o 'at Lines.Program.Direct() .*' | head -1)" "$want"
# the assembly's own build with a PDB that has its id but other content (a
# document's name changed): the PDB checksum refuses it; no lines, said once
mkdir -p "$OUT/tampered" && cp "$portable" "$OUT/tampered/"
perl -0777 -pe 's/Program\.cs/Pragram.cs/' "${portable%.dll}.pdb" >"$OUT/tampered/Lines.pdb"
jq -c --arg dll "$portable" --arg to "$OUT/tampered/Lines.dll" \
	'if .modules then .modules |= map(if .path == $dll then .path = $to else . end) else . end' "$f" >"$OUT/tampered.jsonl"
expect "a tampered PDB (its id, other content): no lines in view" "$(view_sites "$OUT/tampered.jsonl")" ""
expect "a tampered PDB: no lines in export" "$(export_sites "$OUT/tampered.jsonl")" ""
expect "a tampered PDB: view says why, once" "$("$CLRTRACE" view "$OUT/tampered.jsonl" 2>&1 >/dev/null)" \
	"clrtrace: note: $OUT/tampered/Lines.dll: its PDB is not the one it was built with (the PDB checksum differs); no source lines from it"
# stats --json: the sites, most frequent first, with their outcomes
expect "stats --json: exceptions.by_site" \
	"$("$CLRTRACE" stats --json "$f" | jq -r '.exceptions.by_site | map(select(.site | test("InvalidOperationException at Lines.Program.Direct\\(\\) in .*Program.cs:line [0-9]+$"))) | .[0].outcomes.caught')" 1

# the PDB deleted: method and IL offset, no line, no error
mkdir -p "$OUT/deleted" && cp "$portable" "${portable%.dll}.runtimeconfig.json" "$OUT/deleted/"
f="$OUT/deleted.jsonl"
trace "$f" -e +stacks dotnet "$OUT/deleted/Lines.dll" || fail "PDB deleted: run failed"
check_trace "$f"
expect "PDB deleted: no lines in view" "$(view_sites "$f")" ""
expect "PDB deleted: no lines in export" "$(export_sites "$f")" ""
want=$(awk '$2 ~ /^0x/ && $1 == "direct" { printf "at Lines.Program.Direct() IL_%04x", $3 }' "$f.stdout")
expect "PDB deleted: export's args.site says the method and its IL offset" \
	"$("$CLRTRACE" export --format chrome "$f" | jq -r '.traceEvents[] | select(.name == "exception.throw"
		and .args.exception.type == "System.InvalidOperationException") | .args.site')" "$want"
expect "PDB deleted: view says the method and its IL offset" \
	"$("$CLRTRACE" view --throws "$f" 2>&1 | grep -o 'at Lines.Program.Direct() .*' | head -1)" "$want"
err=$("$CLRTRACE" stats "$f" 2>&1 >/dev/null; "$CLRTRACE" view "$f" 2>&1 >/dev/null)
expect "PDB deleted: no error from view or stats" "$err" ""
expect "PDB deleted: stats groups by method and IL offset" \
	"$("$CLRTRACE" stats "$f" | grep -c '^ *[0-9]*  System.InvalidOperationException at Lines.Program.Direct() IL_')" 1

finish
