#!/bin/bash
# `dotnet test` of an xunit project (tests/programs/XunitTests) under the
# tracer, the test host traced (-p 'testhost*': dotnet test starts it as a
# child process): the same tests pass and fail as untraced, no exception is
# called unhandled (the test host catches every one: xunit invokes each
# test method through reflection and reports its exception as a failure),
# and every exception's story ends in a catch; each exception object is
# one error whose fate names who ended it: xunit for a failing test's, the
# test's own catch for one it caught, xunit's assertion for what
# Assert.Throws expected, none unhandled.
. "$(dirname "$0")/lib.sh"

# xunit and its runner come from the machine's NuGet folder
pkgs=${CLRTRACE_TEST_XUNIT_SOURCE:-/opt/nuget/packages}
if [ ! -d "$pkgs/xunit" ] || [ ! -d "$pkgs/microsoft.net.test.sdk" ]; then
	[ "${CI:-}" = true ] && die "no xunit packages in $pkgs (CLRTRACE_TEST_XUNIT_SOURCE)"
	skip "no xunit packages in $pkgs (set CLRTRACE_TEST_XUNIT_SOURCE to a folder that has them)"
fi

# results TRX: "test outcome" lines, sorted
results() {
	python3 - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = '{http://microsoft.com/schemas/VisualStudio/TeamTest/2010}'
for r in sorted(f"{u.get('testName')} {u.get('outcome')}" for u in ET.parse(sys.argv[1]).getroot().iter(ns + 'UnitTestResult')):
    print(r)
EOF
}

# the runtimes the SDK builds for (dotnet test runs the test host through
# the installed muxer: no runtime root)
for v in $(test_runtimes "10 8 9"); do
	n=".NET $v"
	# one copy per runtime: restore writes one assets file per project
	src="$top_builddir/tests/out/src/xunit-net$v"
	proj="$src/XunitTests/XunitTests.csproj"
	# .NET 10 framework-dependent; 8 and 9 self-contained from the runtime
	# pack test_runtimes restored (dotnet test runs the test host on the
	# app's own runtime then)
	args=""
	[ "$v" != 10 ] && args="-r linux-x64 -p:TestTargetFramework=net$v.0 -p:TestPackVersion=$(pack_version "$v")"

	# build once, outside the source tree, with the xunit folder as the only
	# source (test_runtimes has put the runtime packs in the NuGet cache)
	mkdir -p "$src"
	(
		flock 9
		if [ ! -f "$src/built" ] || [ -n "$(find "$top_srcdir/tests/programs/XunitTests" "$top_srcdir/tests/programs"/Directory.Build.* -newer "$src/built" 2>/dev/null)" ]; then
			rm -rf "$src" && mkdir -p "$src"
			cp -r "$top_srcdir/tests/programs/XunitTests" "$top_srcdir/tests/programs"/Directory.Build.* "$src/"
			chmod -R u+w "$src"
			printf '<configuration><packageSources><clear /><add key="local" value="%s" /></packageSources></configuration>\n' "$pkgs" >"$src/NuGet.config"
			dotnet build -c Release $args ${args:+--self-contained} "$proj" >"$src/build.log" 2>&1 || { cat "$src/build.log" >&2; exit 1; }
			touch "$src/built"
		fi
	) 9>"$top_builddir/tests/out/.build-xunit-net$v.lock" || { fail "$n: could not build the xunit project"; continue; }

	# untraced: the project's own results (6 pass, 3 fail, as written)
	dotnet test --no-build -c Release $args --logger "trx;LogFileName=$OUT/net$v-untraced.trx" "$proj" >"$OUT/net$v-untraced.log" 2>&1
	expect "$n untraced: dotnet test exits 1 (tests failed)" "$?" 1
	untraced=$(results "$OUT/net$v-untraced.trx")
	expect "$n untraced: 6 passed, 3 failed" "$(echo "$untraced" | awk '{print $NF}' | sort | uniq -c | tr -s ' ' | tr '\n' ';')" " 3 Failed; 6 Passed;"

	f="$OUT/net$v-xunit.jsonl"
	trace "$f" -p 'testhost*' -- dotnet test --no-build -c Release $args --logger "trx;LogFileName=$OUT/net$v-traced.trx" "$proj"
	expect "$n traced: dotnet test exits 1 (tests failed)" "$?" 1
	expect "$n traced: the same tests pass and fail as untraced" "$(results "$OUT/net$v-traced.trx")" "$untraced"
	expect "$n traced: one process traced, the test host, on .NET $v" \
		"$(jq -r 'select(.event == "runtime.init") | "\(.program) \(.runtime.major)"' "$f")" "testhost $v"
	check_trace "$f"

	# xunit invokes the test methods through reflection: the exceptions of
	# the failing tests leave the method into the runtime's native invoke
	# code, which catches them and throws a TargetInvocationException that
	# xunit catches.  None of that is unhandled.
	expect "$n traced: no exception.unhandled" \
		"$(jq -r 'select(.event == "exception.unhandled") | .exception.type' "$f" | tr '\n' ' ')" ""
	expect "$n traced: no summary says unhandled" \
		"$(jq -r 'select(.event == "exception.summary" and .outcome == "unhandled") | .exception.type' "$(full "$f")" | tr '\n' ' ')" ""

	# every test's exception has its story: a throw and a summary
	for t in Xunit.Sdk.EqualException System.FormatException Xunit.Sdk.ThrowsException \
		System.Collections.Generic.KeyNotFoundException System.InvalidOperationException XunitTests.PassException; do
		expect "$n traced: $t thrown and summed up" \
			"$(jq -r --arg t "$t" 'select((.event == "exception.throw" or .event == "exception.summary") and .exception.type == $t) | .event' "$(full "$f")" | sort -u | tr '\n' ' ')" \
			"exception.summary exception.throw "
	done
	expect "$n traced: every exception thrown has its summary" \
		"$(jq -r 'select(.event == "exception.throw") | .exception.id' "$f" | sort -n | tr '\n' ' ')" \
		"$(jq -r 'select(.event == "exception.summary") | .exception.id' "$(full "$f")" | sort -n | tr '\n' ' ')"
	# ... and each story ends in a catch: caught itself, or its story goes
	# on in a later throw of the same object (rethrow_of) or in the
	# exception that superseded it (superseded_by, e.g. the
	# TargetInvocationException that wraps it), and that ends in a catch
	expect "$n traced: every exception's story ends in a catch" \
		"$(jq -s -r '
		  [.[] | select(.event == "exception.summary")] as $s
		  | ($s | map({key: (.exception.id | tostring), value: .}) | from_entries) as $by
		  | def ends_caught($d):
		      if $d > 50 then false
		      elif .outcome == "caught" then true
		      elif .outcome == "unhandled" then false
		      else (.exception.id) as $id
		        | ([(if .superseded_by then $by[.superseded_by | tostring] else empty end),
		            ($s[] | select(.rethrow_of == $id))] | map(select(. != null)))
		        | any(.[]; ends_caught($d + 1))
		      end;
		  $s[] | select(ends_caught(0) | not) | "\(.exception.id):\(.exception.type):\(.outcome)"' "$(full "$f")" | tr '\n' ' ')" ""

	# errors, not throws (issue 28): each object is one error, and its fate
	# says who ended it.  fate_of TYPE MESSAGE-START: the one error of that
	# object, "fate handler-kind handler-label" of the end of its chain of
	# wrappers (wrapped_by: the TargetInvocationException of xunit's
	# reflection call wraps a test method's exception), "<n> errors" when
	# it is not one, each link "fate>" before
	fate_of() {
		jq -s -r --arg t "$1" --arg m "$2" '
		  [.[] | select(.event == "exception.error")] as $e
		  | ($e | map({key: (.error | tostring), value: .}) | from_entries) as $by
		  | def chain($d): if .fate == "wrapped" and .wrapped_by and $d < 5
		      then "wrapped>" + ($by[.wrapped_by | tostring] | chain($d + 1))
		      else "\(.fate) \(.handler.kind // "-") \(.handler.label // "-")" end;
		  [$e[] | select(.exception.type == $t and (.exception.message | startswith($m)))]
		  | if length == 1 then (.[0] | chain(0)) else "\(length) errors" end' "$f"
	}
	# the three failing tests: xunit's aggregator ends them, the test
	# failed (the wrong type's KeyNotFoundException through the
	# ThrowsException that Assert.Throws wraps it in)
	failed="handled_by_framework framework xunit (test failed)"
	expect "$n errors: EqualFails's EqualException is one error xunit failed the test with" \
		"$(fate_of Xunit.Sdk.EqualException "Assert.Equal() Failure")" "wrapped>$failed"
	expect "$n errors: ThrowsFormatException's FormatException is one error xunit failed the test with" \
		"$(fate_of System.FormatException "The input string 'forty-two'")" "wrapped>$failed"
	expect "$n errors: ThrowsTheWrongType's KeyNotFoundException is one error xunit failed the test with" \
		"$(fate_of System.Collections.Generic.KeyNotFoundException "The given key 'missing'")" "wrapped>wrapped>$failed"
	# the test that catches its own: the program handled it
	expect "$n errors: CatchesItsOwn's FormatException is handled by the test's own catch" \
		"$(fate_of System.FormatException "The input string 'not a number'")" "handled program -"
	expect "$n errors: ... in CatchesItsOwn" \
		"$(jq -r 'select(.event == "exception.error" and .exception.type == "System.FormatException" and .fate == "handled") | .handler.function' "$f")" \
		"XunitTests.Tests.CatchesItsOwn"
	# the exceptions Assert.Throws expects: xunit's assertion ends them
	expect "$n errors: Assert.Throws's expected exception is handled by xunit's assertion" \
		"$(fate_of System.InvalidOperationException expected)" "handled_by_framework framework xunit (Assert.Throws)"
	expect "$n errors: Assert.ThrowsAsync's expected exception is handled by xunit's assertion" \
		"$(fate_of XunitTests.PassException async)" "handled_by_framework framework xunit (Assert.Throws)"
	expect "$n errors: none is unhandled or open" \
		"$(jq -r 'select(.event == "exception.error" and (.fate == "unhandled" or .fate == "open")) | "\(.exception.type):\(.fate)"' "$f" | tr '\n' ' ')" ""
	expect "$n errors: every throw names an error that has its fate" \
		"$(jq -r 'select(.event == "exception.throw") | .error' "$f" | sort -un | tr '\n' ' ')" \
		"$(jq -r 'select(.event == "exception.error") | .error' "$f" | sort -un | tr '\n' ' ')"
done

finish
