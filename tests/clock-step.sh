#!/bin/sh
# Durations on the monotonic clock: the wall clock steps back an hour (as
# NTP or an administrator may do it) while a catch block runs; the records
# after the step carry the stepped ts, but no duration is absurd (before,
# the catch's dur_ns and its summary's were about 1.8e19).  The step is
# this process's own (an LD_PRELOAD shim, tests/clock/clockstep.c).
. "${top_srcdir:-.}/tests/lib.sh"
command -v gcc >/dev/null 2>&1 || die "gcc is needed for the clock shim"
dll=$(build_program Loss) || exit 1
shim="$OUT/clockstep.so"
gcc -shared -fPIC -O2 -o "$shim" "$top_srcdir/tests/clock/clockstep.c" -ldl || die "cannot build the clock shim"

f="$OUT/step.jsonl"
rm -f "$OUT/step" "$OUT/go"
LD_PRELOAD="$shim" CLOCKSTEP_FILE="$OUT/step" \
	timeout -k 10 120 "$CLRTRACE" run -e +frames -o "file:$f" -- dotnet "$dll" slow-catch 0 "$OUT/go" >"$OUT/prog.stdout" 2>"$OUT/run.err" &
job=$!
wait_gate prog
touch "$OUT/step"
sleep 0.3
touch "$OUT/go"
wait $job
expect "the program ran as untraced" "$? $(tr '\n' ' ' <"$OUT/prog.stdout")" "0 waiting caught "
expect "the wall clock did step back an hour in the traced process (ts goes back)" \
	"$(jq -s '[.[].ts] | . as $t | [range(1; length) | select($t[.] < $t[. - 1] - 3000000000000)] | length' "$f")" 1
expect "the catch's span lasted the wait, not an hour or 1.8e19 ns" \
	"$(jq -r 'select(.event == "exception.catch" and .phase == "end") | .dur_ns | (. > 200000000 and . < 120000000000)' "$f")" true
expect "the exception's summary too" \
	"$(jq -r 'select(.event == "exception.summary") | .dur_ns | (. > 200000000 and . < 120000000000)' "$f")" true
expect "no duration in the trace is longer than the run" \
	"$(jq -s '[.[] | .dur_ns // 0 | select(. > 120000000000)] | length' "$f")" 0
check_trace "$f"
finish
