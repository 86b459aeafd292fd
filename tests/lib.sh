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

TESTLIB="$top_srcdir/tests/lib"
. "$TESTLIB/assert.sh"

command -v dotnet >/dev/null 2>&1 || skip "no dotnet SDK"
command -v jq >/dev/null 2>&1 || die "jq is needed (run setup.sh)"

# by concern: the build cache of the test programs, running them under the
# tracer, the runtime matrix and its NuGet resolver
. "$TESTLIB/build.sh"
. "$TESTLIB/run.sh"
. "$TESTLIB/runtimes.sh"
. "$TESTLIB/nuget.sh"
