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
# a failure noted inside $(...) or a pipeline (a subshell) lands here too
FAILMARK="$OUT/.failed"

fail() { echo "FAIL: $*"; FAILED=1; echo "$*" >>"$FAILMARK"; }
die() { echo "FAIL: $*"; echo "$*" >>"$FAILMARK"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }
finish() {
	[ -s "$FAILMARK" ] && [ "$FAILED" = 0 ] && { echo "FAIL: (noted in a subshell) $(tr '\n' ';' <"$FAILMARK")"; FAILED=1; }
	[ "$FAILED" = 0 ] && { echo "PASS: $TEST_NAME"; exit 0; }
	exit 1
}

command -v dotnet >/dev/null 2>&1 || skip "no dotnet SDK"
command -v jq >/dev/null 2>&1 || die "jq is needed (run setup.sh)"

# sources_hash NAME [WORDS...]: 12 hex digits naming tests/programs/NAME's
# sources, the shared build files and WORDS (extra build arguments)
sources_hash() {
	local name=$1
	shift
	{
		(cd "$top_srcdir/tests/programs" && find "$name" Directory.Build.props Directory.Build.targets NuGet.config \
			-type f -print0 | sort -z | xargs -0 sha256sum)
		printf '%s\n' "$@"
	} | sha256sum | cut -c1-12
}

# build_net10 NAME DIR-NAME [--publish] DOTNET-BUILD-ARGS...: build
# tests/programs/NAME for .NET 10 into tests/out/bin/DIR-NAME-HASH (HASH:
# sources_hash of the sources and the arguments), once, and print that
# directory.  Like program_cmd's .NET 8/9 builds, each version of the
# sources has its own directory, put in place whole once built: a test that
# changed the sources never removes or rewrites a build another test is
# running.  --publish: `dotnet publish` instead (e.g. self-contained, with
# the runtime pack the SDK picks from the machine's NuGet source: no
# NuGet.config then, and a failed request is tried again once).
build_net10() {
	local name=$1 dir hash bin src verb=build
	dir=$2
	shift 2
	[ "${1:-}" = --publish ] && { verb=publish; shift; }
	hash=$(sources_hash "$name" "$@")
	bin="$top_builddir/tests/out/bin/$dir-$hash"
	src="$top_builddir/tests/out/src/$dir-$hash"
	mkdir -p "$top_builddir/tests/out/bin"
	(
		flock 9
		if [ ! -d "$bin" ]; then
			rm -rf "$src" "$bin.tmp"
			mkdir -p "$src"
			cp -r "$top_srcdir/tests/programs/$name" "$src/$name"
			cp "$top_srcdir/tests/programs/Directory.Build.props" "$src/"
			[ $verb = build ] && cp "$top_srcdir/tests/programs/NuGet.config" "$src/"
			chmod -R u+w "$src"
			for try in 1 2; do
				dotnet $verb -c Release "$@" -o "$bin.tmp" "$src/$name/$name.csproj" >"$src/build.log" 2>&1 && break
				[ "$try" = 2 ] || [ $verb = build ] && { cat "$src/build.log" >&2; exit 1; }
				sleep 2
			done
			mv "$bin.tmp" "$bin" || exit 1
		fi
		# its builds for other sources that no test took for two hours
		touch "$bin"
		find "$top_builddir/tests/out/bin" "$top_builddir/tests/out/src" -mindepth 1 -maxdepth 1 -name "$dir-*" \
			! -name "$dir-$hash" ! -name '*.tmp' -mmin +120 -exec rm -rf {} + 2>/dev/null
		exit 0
	) 9>"$top_builddir/tests/out/.build-$dir.lock" || return 1
	echo "$bin"
}

# build_program NAME: build tests/programs/NAME for .NET 10 (once per
# version of its sources, build_net10) and print the path of its dll.
build_program() {
	local bin
	bin=$(build_net10 "$1" "$1-net10") || die "could not build $1"
	echo "$bin/$1.dll"
}

# build_variant NAME VARIANT [--publish] DOTNET-BUILD-ARGS...: build
# tests/programs/NAME (.NET 10) with extra build arguments into a directory
# of its own (the build's obj directory must not be shared with the plain
# build), once per version of its sources; prints the directory.
build_variant() {
	local name=$1 variant=$2 bin
	shift 2
	bin=$(build_net10 "$name" "$name-$variant-net10" "$@") || die "could not build $name ($variant)"
	echo "$bin"
}

# free_port: a loopback TCP port nothing listens on now, from the kernel
# (two tests that picked ports from their pids could meet on one)
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# trace FILE [clrtrace run options] -- PROGRAM ARGS: run under the tracer
# with one file output; stdout/stderr of the program go to FILE.stdout/.stderr.
trace() {
	local file=$1; shift
	rm -f "$file"
	# a hung program must fail its test, not stall the suite
	timeout -k 10 600 "$CLRTRACE" run -o "file:$file" "$@" >"$file.stdout" 2>"$file.stderr"
}

# wait_gate NAME: until the program (tests/programs/Loss) prints "waiting"
# on $OUT/NAME.stdout for its gate file
wait_gate() {
	local i
	for i in $(seq 600); do
		grep -q waiting "$OUT/$1.stdout" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "$1: the program never reached its gate"
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

# --- the runtime matrix -------------------------------------------------------
# One row a runtime the tests run on: KEY WANTED HOW.  KEY names it in test
# output and file names (its major version, "10n" for .NET 10's newest
# patch); WANTED is the runtime pack version wanted from the NuGet source
# (CLRTRACE_TEST_PACK_KEY overrides it, "10n" as 10n); HOW is one of
#   installed  the installed SDK's runtime: `dotnet NAME.dll`
#   sc         a self-contained build for net<major>.0 pinned to the pack
#   root       a runtime root assembled from the pack (the installed
#              muxer, host/fxr and shared/Microsoft.NETCore.App from the
#              pack) running the .NET 10 build, rolled forward to a newer
#              major (there is no SDK for it here)
# The NuGet source holds only some versions and can fail a first request:
# the wanted version is tried twice, then the versions the source names
# (NU1102's nearest) and the older patches below.  The version found is kept
# in $RT_DIR/netKEY.version ("VERSION TRIES") for every later test.
RT_DIR="$top_builddir/tests/out/packs"
RT_MATRIX="10 - installed
8 8.0.34 sc
9 9.0.23 sc
11 11.0.0 root
10n 10.0.15 root"
# older patches to fall back to, newest first
RT_FALLBACK="8.0.33 8.0.31 9.0.22 9.0.20 10.0.14 10.0.13"
RT_KEYS=$(echo "$RT_MATRIX" | cut -d' ' -f1 | tr '\n' ' ')
RT_KEYS=${RT_KEYS% }

# rt_row KEY FIELD: field 2 (wanted) or 3 (how) of KEY's row
rt_row() { echo "$RT_MATRIX" | awk -v k="$1" -v f="$2" '$1 == k { print $f }'; }
# rt_how KEY: installed, sc or root
rt_how() { rt_row "$1" 3; }
# rt_major KEY: the major version (10n: 10)
rt_major() { echo "${1%%[!0-9]*}"; }

# _rt_note MESSAGE: a note on stderr (test_runtimes and program_cmd run in $(...)).
_rt_note() { echo "note: $*" >&2; }

# _rt_fail MESSAGE: fail the calling test from inside $(...): finish() sees the mark.
_rt_fail() { echo "FAIL: $*" >&2; echo "$*" >>"$FAILMARK"; }

# _rt_restore KEY PIN LOG: for an sc row, restore an empty self-contained
# program for the key's major with the packs pinned to PIN (empty: the SDK's
# choice); for a root row, download the runtime pack PIN into $RT_DIR/pkgs.
# Prints the runtime pack version it got.
_rt_restore() {
	local key=$1 pin=$2 log=$3 v d="$RT_DIR/net$1.probe"
	v=$(rt_major "$key")
	rm -rf "$d" && mkdir -p "$d/p" || return 1
	cp "$top_srcdir/tests/programs/Directory.Build.props" "$top_srcdir/tests/programs/Directory.Build.targets" "$d/"
	chmod u+w "$d"/*
	if [ "$(rt_how "$key")" = root ]; then
		[ -n "$pin" ] || return 1
		# the runtime and ASP.NET Core (tests/webapp.sh), the same version
		printf '<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageDownload Include="%s" Version="[%s]" /><PackageDownload Include="%s" Version="[%s]" /></ItemGroup></Project>\n' \
			Microsoft.NETCore.App.Runtime.linux-x64 "$pin" Microsoft.AspNetCore.App.Runtime.linux-x64 "$pin" >"$d/p/p.csproj"
		dotnet restore --packages "$RT_DIR/pkgs" "$d/p/p.csproj" >>"$log" 2>&1 || return 1
		[ -f "$RT_DIR/pkgs/microsoft.netcore.app.runtime.linux-x64/$pin/runtimes/linux-x64/native/libcoreclr.so" ] || return 1
		[ -d "$RT_DIR/pkgs/microsoft.aspnetcore.app.runtime.linux-x64/$pin/runtimes/linux-x64/lib" ] || return 1
		echo "$pin"
		return
	fi
	echo '<Project Sdk="Microsoft.NET.Sdk"/>' >"$d/p/p.csproj"
	dotnet restore -r linux-x64 -p:SelfContained=true -p:TestTargetFramework="net$v.0" ${pin:+-p:TestPackVersion=$pin} \
		"$d/p/p.csproj" >>"$log" 2>&1 || return 1
	jq -r '.project.frameworks[].downloadDependencies[] | select(.name == "Microsoft.NETCore.App.Runtime.linux-x64")
	  | .version | ltrimstr("[") | sub(",.*"; "")' "$d/p/obj/project.assets.json"
}

# _rt_root VERSION: assemble $RT_DIR/root-VERSION from the downloaded packs
# (the installed muxer, host/fxr/VERSION, shared/Microsoft.NETCore.App/VERSION
# and shared/Microsoft.AspNetCore.App/VERSION), whole or not at all.
_rt_root() {
	local ver=$1 root="$RT_DIR/root-$1" pkgs="$RT_DIR/pkgs" muxer fw asp pack
	pack="$pkgs/microsoft.netcore.app.runtime.linux-x64/$ver/runtimes/linux-x64"
	[ -x "$root/dotnet" ] && return 0
	muxer=$(readlink -f "$(command -v dotnet)") || return 1
	rm -rf "$root.tmp"
	fw="$root.tmp/shared/Microsoft.NETCore.App/$ver"
	asp="$root.tmp/shared/Microsoft.AspNetCore.App/$ver"
	mkdir -p "$root.tmp/host/fxr/$ver" "$fw" "$asp" &&
		cp "$muxer" "$root.tmp/dotnet" &&
		cp "$pack/native/libhostfxr.so" "$root.tmp/host/fxr/$ver/" &&
		cp "$pack"/lib/net*/* "$fw/" &&
		find "$pack/native" -maxdepth 1 -type f ! -name libhostfxr.so -exec cp {} "$fw/" \; &&
		cp "$pkgs/microsoft.aspnetcore.app.runtime.linux-x64/$ver/runtimes/linux-x64/lib"/net*/* "$asp/" &&
		mv "$root.tmp" "$root"
}

# _rt_candidates KEY LOG: pack versions of KEY's major to fall back to,
# newest first: those the source's NU1102 errors name, then the older
# patches of RT_FALLBACK.
_rt_candidates() {
	local v
	v=$(rt_major "$1")
	{
		grep -o 'Nearest version: [0-9.]*' "$2" | sed 's/.* //'
		echo "$RT_FALLBACK" | tr ' ' '\n'
	} | grep -E "^$v\\.0\\.[0-9]+\$" | awk '!seen[$0]++' | head -4
}

# _rt_resolve KEY: find a runtime pack for KEY (called under the lock);
# writes $RT_DIR/netKEY.version ("VERSION TRIES") or $RT_DIR/netKEY.failed.
_rt_resolve() {
	local key=$1 log="$RT_DIR/net$1.log" got="" tries=0 var="CLRTRACE_TEST_PACK_$1" pin
	: >"$log"
	# the wanted version (or CLRTRACE_TEST_PACK_KEY), twice: a first request can fail
	eval "pin=\${$var:-}"
	[ -n "$pin" ] || pin=$(rt_row "$key" 2)
	for pin in "$pin" "$pin"; do
		tries=$((tries + 1))
		echo "== try $tries: ${pin:-the SDK default}" >>"$log"
		got=$(_rt_restore "$key" "$pin" "$log") && [ -n "$got" ] && break
		got=""; sleep 2
	done
	if [ -z "$got" ]; then
		for pin in $(_rt_candidates "$key" "$log"); do
			tries=$((tries + 1))
			echo "== try $tries: $pin" >>"$log"
			got=$(_rt_restore "$key" "$pin" "$log") && [ -n "$got" ] && break
			got=""
		done
	fi
	if [ -n "$got" ] && [ "$(rt_how "$key")" = root ] && ! _rt_root "$got" >>"$log" 2>&1; then
		echo "== could not assemble the runtime root of $got" >>"$log"
		got=""
	fi
	if [ -n "$got" ]; then
		echo "$got $tries" >"$RT_DIR/net$key.version"
		rm -f "$RT_DIR/net$key.failed"
	else
		echo "no .NET $key runtime pack from the NuGet source after $tries tries ($(grep -m1 -o 'error NU[0-9]*:.*' "$log" | cut -c1-160); see $log)" >"$RT_DIR/net$key.failed"
	fi
}

# test_runtimes [KEYS]: the runtimes to test, keys of RT_MATRIX in its
# order ("10 8 9 11 10n"), or those of KEYS (a test that needs what only
# some rows have, or a slow one run where the runtimes differ).  A runtime
# that cannot be had fails the test under CI=true, else is left out with a
# note.  CLRTRACE_TEST_RUNTIMES (e.g. "10 11") narrows the list outside CI;
# CLRTRACE_SANITIZERS (set by make check-sanitizers) makes it 10 alone.
test_runtimes() {
	local v list="" want=${1:-$RT_KEYS}
	mkdir -p "$RT_DIR"
	for v in $RT_KEYS; do
		echo " $want " | grep -q " $v " || continue
		# make check-sanitizers: only .NET 10 runs through the installed
		# `dotnet`, where tests/sanitizers/dotnet preloads the ASan runtime;
		# the other runtimes are tested by the main suite
		if [ "$v" != 10 ] && [ -n "${CLRTRACE_SANITIZERS:-}" ]; then
			continue
		fi
		if [ "$v" != 10 ] && [ -n "${CLRTRACE_TEST_RUNTIMES:-}" ] && ! echo " $CLRTRACE_TEST_RUNTIMES " | grep -q " $v "; then
			if [ "${CI:-}" = true ]; then
				_rt_note "CLRTRACE_TEST_RUNTIMES is ignored under CI=true"
			else
				_rt_note ".NET $v left out (CLRTRACE_TEST_RUNTIMES=$CLRTRACE_TEST_RUNTIMES)"; continue
			fi
		fi
		if [ "$(rt_how "$v")" != installed ]; then
			(
				flock 9
				# a failure is tried again after 10 minutes, not by every test
				if [ ! -s "$RT_DIR/net$v.version" ] &&
					{ [ ! -f "$RT_DIR/net$v.failed" ] || [ -n "$(find "$RT_DIR/net$v.failed" -mmin +10)" ]; }; then
					_rt_resolve "$v"
				fi
			) 9>"$RT_DIR/.net$v.lock"
			if [ ! -s "$RT_DIR/net$v.version" ]; then
				if [ "${CI:-}" = true ]; then
					_rt_fail ".NET $v: $(cat "$RT_DIR/net$v.failed" 2>/dev/null) (CI=true: every runtime must be tested)"
				else
					_rt_note ".NET $v left out: $(cat "$RT_DIR/net$v.failed" 2>/dev/null)"
				fi
				continue
			fi
		fi
		list="$list $v"
	done
	echo "${list# }"
}

# pack_version KEY: the runtime pack version KEY's row uses (not 10's).
pack_version() { cut -d' ' -f1 "$RT_DIR/net$1.version" 2>/dev/null; }

# rt_version KEY: the runtime version a program run for KEY reports.
rt_version() {
	if [ "$(rt_how "$1")" = installed ]; then
		dotnet --list-runtimes | sed -n "s/^Microsoft.NETCore.App \\($(rt_major "$1")\\.[^ ]*\\) .*/\\1/p" | sort -V | tail -1
	else
		pack_version "$1"
	fi
}

# program_cmd NAME KEY: build tests/programs/NAME for runtime KEY once and
# print the words that run it (use them unquoted): "dotnet /abs/NAME.dll"
# for 10, the self-contained "/abs/NAME" for 8 and 9, "ROOT/dotnet
# /abs/NAME.dll" (rolled forward with env DOTNET_ROLL_FORWARD=Major) for a
# runtime root.  Fails (after printing them, and noting why) when the build
# failed: `cmd=$(program_cmd ...) || die ...`.  A self-contained build has a
# directory of its own per pack and sources (a hash of them), put in place
# whole once built: a test that builds changed sources never removes or
# rewrites the build another test is running (a program gone under
# `clrtrace run` says only "no trace file was written"), nor the build files
# another program's build reads.
program_cmd() {
	local name=$1 key=$2 v dll pack hash bin src how
	v=$(rt_major "$key")
	how=$(rt_how "$key")
	if [ "$how" = installed ] || [ "$how" = root ]; then
		dll=$(build_program "$name") || { _rt_fail "could not build $name"; echo "dotnet $top_builddir/tests/out/bin/$name-net10/$name.dll"; return 1; }
		if [ "$how" = installed ]; then
			echo "dotnet $dll"
		elif [ -z "$(pack_version "$key")" ]; then
			_rt_fail "program_cmd $name $key: no .NET $key runtime root (call test_runtimes first)"
			echo "dotnet $dll"; return 1
		elif [ "$v" -gt 10 ]; then
			echo "env DOTNET_ROLL_FORWARD=Major $RT_DIR/root-$(pack_version "$key")/dotnet $dll"
		else
			echo "$RT_DIR/root-$(pack_version "$key")/dotnet $dll"
		fi
		return
	fi
	pack=$(pack_version "$key")
	if [ -z "$pack" ]; then
		_rt_fail "program_cmd $name $key: no .NET $key runtime pack (call test_runtimes first)"
		echo "$top_builddir/tests/out/bin/$name-net$key/$name"; return 1
	fi
	hash=$(sources_hash "$name")
	bin="$top_builddir/tests/out/bin/$name-net$key-$pack-$hash"
	src="$top_builddir/tests/out/src/$name-net$key-$pack-$hash"
	mkdir -p "$top_builddir/tests/out/bin"
	(
		flock 9
		if [ ! -x "$bin/$name" ]; then
			rm -rf "$src" "$bin.tmp"
			mkdir -p "$src"
			cp -r "$top_srcdir/tests/programs/$name" "$src/$name"
			cp "$top_srcdir/tests/programs"/Directory.Build.* "$src/"
			chmod -R u+w "$src"
			# no NuGet.config: the packs come from the machine's NuGet source
			# (already restored by test_runtimes); a failed request is retried once
			for try in 1 2; do
				dotnet publish -c Release -r linux-x64 --self-contained -p:TestTargetFramework="net$v.0" -p:TestPackVersion="$pack" \
					-o "$bin.tmp" "$src/$name/$name.csproj" >"$src/build.log" 2>&1 && break
				[ "$try" = 2 ] && { cat "$src/build.log" >&2; exit 1; }
				sleep 2
			done
			echo "$pack" >"$bin.tmp/.pack"
			mv "$bin.tmp" "$bin" || exit 1
		fi
		# its builds for other sources or packs that no test took for two hours
		touch "$bin"
		find "$top_builddir/tests/out/bin" "$top_builddir/tests/out/src" -mindepth 1 -maxdepth 1 -name "$name-net$key-*" \
			! -name "$name-net$key-$pack-$hash" ! -name '*.tmp' -mmin +120 -exec rm -rf {} + 2>/dev/null
		exit 0
	) 9>"$top_builddir/tests/out/.build-$name-net$key.lock" || { _rt_fail "could not build $name for .NET $key ($pack)"; echo "$bin/$name"; return 1; }
	echo "$bin/$name"
}
