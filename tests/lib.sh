# Shared helpers for the shell tests; source it first.  Each test prints
# what it checks and exits 0 (pass), 1 (fail) or 77 (skip).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
	DOTNET_GENERATE_ASPNET_CERTIFICATE=0 DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1
# the tests run the build tree's clrtrace and library
CLRTRACE="$top_builddir/clrtrace"
export CLRTRACE_LIBRARY="$top_builddir/libclrtrace.so"
TEST_NAME=$(basename "$0" .sh)
OUT="$top_builddir/tests/out/$TEST_NAME"
rm -rf "$OUT"
mkdir -p "$OUT"
FAILED=0

fail() { echo "FAIL: $*"; FAILED=1; }
die() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }
finish() { [ "$FAILED" = 0 ] && { echo "PASS: $TEST_NAME"; exit 0; }; exit 1; }

command -v dotnet >/dev/null 2>&1 || skip "no dotnet SDK"
command -v jq >/dev/null 2>&1 || die "jq is needed (run setup.sh)"

# build_program NAME: build tests/programs/NAME (once, outside the source
# tree) and print the path of its dll.
build_program() {
	local name=$1 src="$top_builddir/tests/out/src" bin="$top_builddir/tests/out/bin/$1"
	mkdir -p "$src"
	(
		flock 9
		if [ ! -f "$bin/$name.dll" ] || [ -n "$(find "$top_srcdir/tests/programs/$name" -newer "$bin/$name.dll" -name '*.cs' 2>/dev/null)" ]; then
			rm -rf "$src/$name"
			cp -r "$top_srcdir/tests/programs/$name" "$src/$name"
			cp "$top_srcdir/tests/programs/Directory.Build.props" "$top_srcdir/tests/programs/NuGet.config" "$src/"
			chmod -R u+w "$src"
			dotnet build -c Release -o "$bin" "$src/$name/$name.csproj" >"$src/$name.build.log" 2>&1 ||
				{ cat "$src/$name.build.log" >&2; exit 1; }
		fi
	) 9>"$top_builddir/tests/out/.build.lock" || die "could not build $name"
	echo "$bin/$name.dll"
}

# trace FILE [clrtrace run options] -- PROGRAM ARGS: run under the tracer
# with one file output; stdout/stderr of the program go to FILE.stdout/.stderr.
trace() {
	local file=$1; shift
	rm -f "$file"
	# a hung program must fail its test, not stall the suite
	timeout -k 10 600 "$CLRTRACE" run -o "file:$file" "$@" >"$file.stdout" 2>"$file.stderr"
}

# jqf FILE FILTER: jq -c over a trace (one value per line).
jqf() { jq -c "$2" "$1"; }

# expect NAME GOT WANT
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi
}

# check_trace FILE: the trace's own invariants: seq 1..N with no gap at all
# (no drops either), and what `clrtrace check` checks (schema, nesting).
check_trace() {
	local f=$1 msg
	msg=$(jq -s -r '
	  (map(.seq) | sort) as $s
	  | if ($s | length) == 0 then "empty trace"
	    elif $s[0] != 1 or ($s[-1] != ($s | length)) then "seq gaps: \($s | length) records, last seq \($s[-1])"
	    else "ok" end' "$f") || msg="not JSON Lines"
	if [ "$msg" = ok ]; then ok "$(basename "$f"): seq 1..N without gaps"; else fail "$(basename "$f"): $msg"; fi
	if msg=$("$CLRTRACE" check -q -m 3 "$f" 2>&1); then
		ok "$(basename "$f"): schema and nesting (clrtrace check)"
	else
		fail "$(basename "$f"): $(echo "$msg" | tr '\n' ' ')"
	fi
}

# TEMPORARY (wip/filters): a minimal stand-in for the "runtimes" helper's
# test_runtimes/program_cmd; the real ones replace these at merge.
# test_runtimes: the major versions to test (10, and 8/9 when they build).
test_runtimes() {
	local v out=10
	for v in 8 9; do
		program_cmd Scenarios "$v" >/dev/null 2>&1 && out="$out $v"
	done
	echo "$out"
}

# program_cmd NAME V: the words that run tests/programs/NAME on .NET V.
program_cmd() {
	local name=$1 v=$2 bin src
	if [ "$v" = 10 ]; then
		echo "dotnet $(build_program "$name")" && return 0
		return 1
	fi
	bin="$top_builddir/tests/out/bin/$name-net$v" src="$top_builddir/tests/out/src/$name-net$v"
	(
		flock 9
		if [ ! -x "$bin/$name" ] || [ -n "$(find "$top_srcdir/tests/programs/$name" -newer "$bin/$name" -name '*.cs' 2>/dev/null)" ]; then
			rm -rf "$src" && mkdir -p "$src"
			cp -r "$top_srcdir/tests/programs/$name" "$top_srcdir/tests/programs/Directory.Build.props" "$src/"
			chmod -R u+w "$src"
			dotnet publish -c Release -r linux-x64 --self-contained -p:TestTargetFramework=net$v.0 \
				-o "$bin" "$src/$name/$name.csproj" >"$src/publish.log" 2>&1 ||
				dotnet publish -c Release -r linux-x64 --self-contained -p:TestTargetFramework=net$v.0 \
					-o "$bin" "$src/$name/$name.csproj" >"$src/publish.log" 2>&1 || exit 1
		fi
	) 9>"$top_builddir/tests/out/.build.lock" || return 1
	echo "$bin/$name"
}
