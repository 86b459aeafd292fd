# Shared by the benchmark scripts; source it right after setting srcdir.

# die MESSAGE: say it as bench: MESSAGE on stderr and exit 1.
die() { echo "bench: $*" >&2; exit 1; }

# runs_option DEFAULT "$@": the options of a script that takes only
# -n RUNS and -h (its "# Usage: " line); sets RUNS, a number.
runs_option() {
	local o
	RUNS=$1
	shift
	while getopts n:h o; do
		case $o in
		n) RUNS=$OPTARG ;;
		h) sed -n 's/^# Usage: /Usage: /p' "$0"; exit 0 ;;
		*) exit 2 ;;
		esac
	done
	case $RUNS in '' | *[!0-9]*) die "-n wants a number of runs, not '$RUNS'" ;; esac
}

# find_build FILE: set BUILD (absolute) to the build directory given as
# BUILD=DIR, or else to the first of ./, ../build*, ./build* and
# $srcdir/build* that holds an executable clrtrace and FILE.
find_build() {
	local c
	if [ -z "${BUILD:-}" ]; then
		for c in ./clrtrace ../build*/clrtrace ./build*/clrtrace "$srcdir"/build*/clrtrace; do
			if [ -x "$c" ] && [ -f "$(dirname "$c")/$1" ]; then
				BUILD=$(dirname "$c")
				break
			fi
		done
		[ -n "${BUILD:-}" ] || die "no build directory found; configure and build one, then BUILD=DIR $0"
	fi
	c=$BUILD
	BUILD=$(cd "$c" 2>/dev/null && pwd) || die "BUILD=$c is not a directory"
}

# build_bench NAME DIR: build the C# project DIR (DIR/NAME.csproj) out of the
# source tree into $BUILD/bench/out/bin/NAME, optimized, when its sources
# changed; sets OUT and DLL.  It builds next to a copy of
# tests/programs/Directory.Build.props and NuGet.config (no package source).
build_bench() {
	local name=$1 dir=$2 psrc pbin
	OUT=$BUILD/bench/out
	psrc=$OUT/src
	pbin=$OUT/bin/$name
	mkdir -p "$psrc"
	if [ ! -f "$pbin/$name.dll" ] ||
		[ -n "$(find "$dir" "$srcdir/tests/programs/Directory.Build.props" \
			-newer "$pbin/$name.dll" -type f 2>/dev/null)" ]; then
		echo "bench: building $name" >&2
		rm -rf "${psrc:?}/$name"
		cp -r "$dir" "$psrc/$name"
		rm -rf "$psrc/$name/obj" "$psrc/$name/bin"
		cp "$srcdir/tests/programs/Directory.Build.props" "$srcdir/tests/programs/NuGet.config" "$psrc/"
		chmod -R u+w "$psrc"
		# the test programs' settings turn the JIT optimizer off: a benchmark wants it
		dotnet build -c Release -p:Optimize=true -o "$pbin" "$psrc/$name/$name.csproj" >"$OUT/build-$name.log" 2>&1 ||
			{ cat "$OUT/build-$name.log" >&2; die "could not build $name"; }
	fi
	DLL=$pbin/$name.dll
}

# build_null_profiler: build bench/null-profiler (its own code, com.c and iids.c:
# DllGetClassObject, the GUIDs) into $BUILD/bench/out when it changed; sets
# NULLPROF to the library.
build_null_profiler() {
	NULLPROF=$BUILD/bench/out/null-profiler.so
	mkdir -p "$BUILD/bench/out"
	[ -f "$BUILD/autoconf.h" ] || die "no autoconf.h in $BUILD"
	if [ ! -f "$NULLPROF" ] || [ "$srcdir/bench/null-profiler/null-profiler.c" -nt "$NULLPROF" ]; then
		${CC:-gcc} -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter -fPIC -shared -fvisibility=hidden \
			-include "$BUILD/autoconf.h" -I"$srcdir/src" -o "$NULLPROF" \
			"$srcdir/bench/null-profiler/null-profiler.c" "$srcdir/src/profiler/abi/com.c" \
			"$srcdir/src/profiler/abi/iids.c" ||
			die "could not build the null profiler"
	fi
}
# need_wrk: install wrk (Debian's package) when it is missing; needs root.
need_wrk() {
	command -v wrk >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] || die "wrk is missing, and installing it (apt-get install wrk) needs root: run as root or install it"
	command -v apt-get >/dev/null 2>&1 || die "wrk is missing and there is no apt-get to install it"
	echo "bench: installing wrk (apt-get install wrk)" >&2
	{ apt-get install -y wrk || { apt-get update && apt-get install -y wrk; }; } >/dev/null 2>&1 ||
		die "apt-get install wrk failed"
}

# build_throw: build bench/exceptions/Throw (build_bench); sets OUT and DLL.
build_throw() { build_bench Throw "$srcdir/bench/exceptions/Throw"; }

# An awk function for the reports: median(cfg, col), the median of column
# COL (v[i, col]) over the rows i whose configuration c[i] is CFG, leaving
# out the unmeasured warm-up runs (rd[i] == "0").
AWK_MEDIAN='
function median(cfg, col,   a, k, i, j, t) {
	k = 0
	for (i = 1; i <= nr; i++)
		if (c[i] == cfg && rd[i] != "0")
			a[++k] = v[i, col] + 0
	for (i = 2; i <= k; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	if (k == 0) return 0
	return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
'
