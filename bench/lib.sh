# Shared by the benchmark scripts; source it after setting srcdir and die().

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
	BUILD=$(cd "$BUILD" && pwd) || die "BUILD=$BUILD is not a directory"
}
