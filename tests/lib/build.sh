# The build cache of the test programs (sourced by tests/lib.sh): each
# program is built once per version of its sources (and build arguments)
# into a directory of its own under tests/out/bin, put in place whole once
# built, so that a test that changed the sources never removes or rewrites
# a build another test is running (a program gone under `clrtrace run` says
# only "no trace file was written"), nor the build files another program's
# build reads.

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


# build_once NAME STEM SUFFIX VERB DOTNET-ARGS...: build tests/programs/NAME
# with `dotnet VERB -c Release DOTNET-ARGS` into tests/out/bin/STEM-SUFFIX,
# once (under a lock per STEM), and print that directory.  Beside the
# program go Directory.Build.props, Directory.Build.targets when the build
# pins a pack (-p:TestPackVersion=), and NuGet.config for a `build` (a
# `publish` takes the runtime pack the SDK picks from the machine's NuGet
# source, and a failed request is tried again once).  STEM's builds for
# other suffixes that no test took for two hours are removed.
build_once() {
	local name=$1 stem=$2 suffix=$3 verb=$4 bin src try
	shift 4
	bin="$top_builddir/tests/out/bin/$stem-$suffix"
	src="$top_builddir/tests/out/src/$stem-$suffix"
	mkdir -p "$top_builddir/tests/out/bin"
	(
		flock 9
		if [ ! -d "$bin" ]; then
			rm -rf "$src" "$bin.tmp"
			mkdir -p "$src"
			cp -r "$top_srcdir/tests/programs/$name" "$src/$name"
			cp "$top_srcdir/tests/programs/Directory.Build.props" "$src/"
			case " $* " in *" -p:TestPackVersion="*) cp "$top_srcdir/tests/programs/Directory.Build.targets" "$src/" ;; esac
			[ "$verb" = build ] && cp "$top_srcdir/tests/programs/NuGet.config" "$src/"
			chmod -R u+w "$src"
			for try in 1 2; do
				dotnet "$verb" -c Release "$@" -o "$bin.tmp" "$src/$name/$name.csproj" >"$src/build.log" 2>&1 && break
				[ "$try" = 2 ] || [ "$verb" = build ] && { cat "$src/build.log" >&2; exit 1; }
				sleep 2
			done
			mv "$bin.tmp" "$bin" || exit 1
		fi
		touch "$bin"
		find "$top_builddir/tests/out/bin" "$top_builddir/tests/out/src" -mindepth 1 -maxdepth 1 -name "$stem-*" \
			! -name "$stem-$suffix" ! -name '*.tmp' -mmin +120 -exec rm -rf {} + 2>/dev/null
		exit 0
	) 9>"$top_builddir/tests/out/.build-$stem.lock" || return 1
	echo "$bin"
}

# build_net10 NAME DIR-NAME [--publish] DOTNET-BUILD-ARGS...: build
# tests/programs/NAME for .NET 10 into tests/out/bin/DIR-NAME-HASH (HASH:
# sources_hash of the sources and the arguments) with build_once, and print
# that directory.  --publish: `dotnet publish` instead (e.g.
# self-contained).
build_net10() {
	local name=$1 dir=$2 verb=build
	shift 2
	[ "${1:-}" = --publish ] && { verb=publish; shift; }
	build_once "$name" "$dir" "$(sources_hash "$name" "$@")" $verb "$@"
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
