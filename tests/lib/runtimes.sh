# The runtime matrix (sourced by tests/lib.sh): which runtimes a test runs
# on, and the command that runs a test program on one of them.
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
# failed: `cmd=$(program_cmd ...) || die ...`.  A self-contained build is
# one of build_once's, per pack and sources.
program_cmd() {
	local name=$1 key=$2 v dll pack bin how
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
	# the packs come from the machine's NuGet source (already restored by
	# test_runtimes)
	bin=$(build_once "$name" "$name-net$key" "$pack-$(sources_hash "$name")" publish -r linux-x64 --self-contained \
		-p:TestTargetFramework="net$v.0" -p:TestPackVersion="$pack") ||
		{ _rt_fail "could not build $name for .NET $key ($pack)"; echo "$top_builddir/tests/out/bin/$name-net$key-$pack/$name"; return 1; }
	echo "$bin/$name"
}
