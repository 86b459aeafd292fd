#!/bin/bash
# Usage: bench/detach.sh [-n RUNS]
# attach, then detach, while 4 threads throw without pause (the runtime's
# exception dispatch busy on every thread): how many runs end with the
# program crashed or hung, per runtime.  A figure, not a test: a crash here
# is a bug to chase (tests/attach.sh asserts one such run per runtime).
# Needs the Attach program as tests/attach.sh builds it (run that first).
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
runs_option 10 "$@"
find_build clrtrace
OUT=$BUILD/bench/out/detach
mkdir -p "$OUT"
for v in 8 9 10; do
	# .NET 8 and 9: the newest of tests/lib.sh's builds (one directory per pack and sources)
	case $v in 10) cmd="dotnet $BUILD/tests/out/bin/Attach/Attach.dll" ;;
	*) cmd="$(ls -dt "$BUILD/tests/out/bin/Attach-net$v-"*/ 2>/dev/null | head -1)Attach" ;; esac
	[ -e "${cmd##* }" ] || { echo ".NET $v: no Attach program in $BUILD/tests/out/bin (run tests/attach.sh)"; continue; }
	bad=0
	for i in $(seq "$RUNS"); do
		rm -f "$OUT/gate" "$OUT/t.jsonl"
		$cmd "$OUT/gate" 120 4 >"$OUT/out" 2>"$OUT/err" &
		job=$!
		pid=
		for k in $(seq 300); do pid=$(awk '/^ready /{print $2}' "$OUT/out"); [ -n "$pid" ] && break; sleep 0.1; done
		"$BUILD/clrtrace" attach -o "file:$OUT/t.jsonl" -e exceptions "$pid" >/dev/null 2>&1
		sleep 1
		"$BUILD/clrtrace" detach "$pid" >/dev/null 2>&1
		sleep 0.5
		touch "$OUT/gate"
		for k in $(seq 200); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$job" 2>/dev/null; then kill -9 "$job"; bad=$((bad + 1)); echo "  .NET $v run $i: hung"
		else wait "$job"; st=$?; [ "$st" = 0 ] || { bad=$((bad + 1)); echo "  .NET $v run $i: exit $st"; }; fi
	done
	echo ".NET $v: $bad of $RUNS attach+detach runs under 4 throwing threads crashed or hung"
done
