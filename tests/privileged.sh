#!/bin/sh
# A privileged program (AT_SECURE: file capabilities or setuid) started by
# another user with CLRTRACE_* set is not traced: one stderr line, nothing
# written anywhere, the program unchanged.  Needs root to setcap, chmod u+s
# and become nobody.
. "${top_srcdir:-.}/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to make a setcap'd and a setuid apphost and run them as another user"
command -v setpriv >/dev/null 2>&1 || skip "setpriv (util-linux) is missing"
grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status &&
	skip "no_new_privs is set here: setuid and file capabilities raise nothing, so there is no AT_SECURE to test"
id nobody >/dev/null 2>&1 || skip "no user 'nobody' to run the program as"
dll=$(build_program Probe)
bin=$(dirname "$dll")
[ -x "$bin/Probe" ] || die "the Probe build made no apphost"

# everything the other user needs, in a directory it can read
dir=$(mktemp -d /tmp/clrtrace-privileged.XXXXXX) || die "mktemp"
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cp "$bin"/Probe* "$dir/" && cp "$top_builddir/libclrtrace.so" "$dir/" || die "copy"
mkdir "$dir/cwd" "$dir/out" && chmod 1777 "$dir/cwd" "$dir/out"
cp "$dir/Probe" "$dir/ProbeCap"
cp "$dir/Probe" "$dir/ProbeSuid"
chmod u+s "$dir/ProbeSuid"
dotnet_root=$(dirname "$(readlink -f "$(command -v dotnet)")")

# as_nobody [VAR=VALUE...]: run $PROG $ARGS as nobody (with $CAPS for
# setpriv) from $dir/cwd with the tracer on
CAPS=
as_nobody() {
	(cd "$dir/cwd" && env CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{94D19DC5-3374-47C3-9729-75E330DECA23}' \
		CORECLR_PROFILER_PATH="$dir/libclrtrace.so" DOTNET_ROOT="$dotnet_root" \
		CLRTRACE_OUTPUT="file:$dir/out/t-%p.jsonl" CLRTRACE_MESSAGES=0 CLRTRACE_EVENTS=exceptions \
		"$@" setpriv --reuid=nobody --regid=nogroup --clear-groups $CAPS "$dir/$PROG" $ARGS)
}

# the unprivileged run is traced where CLRTRACE_OUTPUT says: the setup works
PROG=Probe ARGS="status 3"
as_nobody >"$dir/plain.out" 2>"$dir/plain.err"
expect "unprivileged apphost as nobody: exit 3" "$?" 3
ls "$dir"/out/t-*.jsonl >/dev/null 2>&1 && ok "unprivileged: traced into CLRTRACE_OUTPUT" ||
	fail "unprivileged run not traced (the test's setup is broken): $(cat "$dir/plain.err")"
rm -f "$dir"/out/*

check_refused() { # NAME
	expect "$1: the program runs on (exit 5)" "$st" 5
	expect "$1: stdout unchanged" "$(cat "$dir/p.out")" "returning 5"
	expect "$1: exactly one clrtrace line on stderr" "$(grep -c '^clrtrace: ' "$dir/p.err")" 1
	grep -q "^clrtrace: not tracing $PROG: it runs with raised privileges (setuid, setgid or file capabilities)" "$dir/p.err" &&
		ok "$1: the line says why it is not traced" || fail "$1: stderr was: $(cat "$dir/p.err")"
	expect "$1: nothing written in the working directory" "$(ls -A "$dir/cwd")" ""
	expect "$1: nothing written where CLRTRACE_OUTPUT says" "$(ls -A "$dir/out")" ""
	rm -rf "$dir"/cwd/* "$dir"/out/*
}

if setcap cap_net_bind_service+ep "$dir/ProbeCap" 2>"$dir/setcap.err"; then
	PROG=ProbeCap ARGS="status 5"
	as_nobody >"$dir/p.out" 2>"$dir/p.err"
	st=$?
	check_refused "setcap'd apphost"
else
	echo "note: setcap failed here ($(cat "$dir/setcap.err")); only the setuid case runs"
fi
PROG=ProbeSuid ARGS="status 5"
as_nobody >"$dir/p.out" 2>"$dir/p.err"
st=$?
check_refused "setuid apphost"

# clrtrace(1)'s way to trace a service that needs a capability: an ambient
# one (systemd's AmbientCapabilities=) raises no AT_SECURE, so it is traced
PROG=Probe ARGS="status 5"
CAPS="--inh-caps=+net_bind_service --ambient-caps=+net_bind_service"
as_nobody >"$dir/p.out" 2>"$dir/p.err"
expect "ambient capability: exit 5" "$?" 5
CAPS=
expect "ambient capability: no line" "$(grep -c '^clrtrace: ' "$dir/p.err")" 0
ls "$dir"/out/t-*.jsonl >/dev/null 2>&1 && ok "ambient capability: traced into CLRTRACE_OUTPUT" ||
	fail "ambient capability: not traced: $(cat "$dir/p.err")"
rm -rf "$dir"/cwd/* "$dir"/out/*

# clrtrace run names the program it traces: a privileged child it did not
# ask for is left out without a word
as_nobody CLRTRACE_PROCESSES=SomethingElse >"$dir/p.out" 2>"$dir/p.err"
expect "excluded by CLRTRACE_PROCESSES: exit 5" "$?" 5
expect "excluded by CLRTRACE_PROCESSES: no line" "$(grep -c '^clrtrace: ' "$dir/p.err")" 0
expect "excluded by CLRTRACE_PROCESSES: nothing written" "$(ls -A "$dir/cwd" "$dir/out" | grep -c jsonl)" 0
finish
