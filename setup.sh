#!/bin/sh
# setup.sh: install what the build needs (Debian packages), build clrtrace
# in ./build, and trace the bundled sample program.  Run it from the top of
# the source tree; run it again at any time (it only does what is missing).
set -eu
cd "$(dirname "$0")"
top=$(pwd)

# Debian packages: the build, and what the test suite uses (jq for
# assertions, python3-jsonschema as an independent schema validator,
# systemd for a real journald, curl to load a web service, zstd to read
# rotated trace files back, clang and its sanitizer and libFuzzer runtimes
# for the fuzzing run, tests/fuzz-run.sh; cppcheck for .ci/run's make
# cppcheck).
PACKAGES="gcc make autoconf automake pkg-config libjansson-dev libsystemd-dev zlib1g-dev libzstd-dev zstd jq python3 python3-jsonschema systemd systemd-journal-remote curl iproute2 openssl clang-14 libclang-rt-14-dev cppcheck"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "setup: installing$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 ||
			{ apt-get update >/dev/null && apt-get install -y --no-install-recommends $missing >/dev/null; }
	else
		echo "setup: missing Debian packages; run as root:"
		echo "  apt-get install -y$missing"
		exit 1
	fi
fi
command -v dotnet >/dev/null 2>&1 || {
	echo "setup: the .NET SDK (dotnet) is not on PATH; install it from https://dot.net and run setup.sh again"
	exit 1
}

[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] || autoreconf -fi >/dev/null 2>&1
mkdir -p build
cd build
[ -f Makefile ] || ../configure >/dev/null
make -j"$(nproc)" >/dev/null

# trace the bundled sample: build it out of the source tree, run it traced
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
mkdir -p sample/src
cp -r "$top/tests/programs/Sample" "$top/tests/programs/Directory.Build.props" "$top/tests/programs/NuGet.config" sample/src/
dotnet build -c Release -o sample/bin sample/src/Sample/Sample.csproj >sample/build.log 2>&1 ||
	{ cat sample/build.log; exit 1; }
echo "setup: built clrtrace in $top/build; tracing the sample:"
echo "  build/clrtrace run -o file:build/sample/sample.jsonl -- dotnet build/sample/bin/Sample.dll"
rm -f sample/sample.jsonl
./clrtrace run -o file:sample/sample.jsonl -- dotnet sample/bin/Sample.dll
if ./clrtrace view sample/sample.jsonl >/dev/null 2>&1; then
	echo "setup: the exception stories of that run (clrtrace view --events exceptions):"
	./clrtrace view --events exceptions sample/sample.jsonl 2>/dev/null | head -40 || true
fi
