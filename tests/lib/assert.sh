# Assertions and the test's verdict (sourced by tests/lib.sh): each check
# prints "ok: ..." or "FAIL: ..."; finish exits 0 (pass) or 1 (fail), and
# skip exits 77.  A failure noted inside $(...) or a pipeline (a subshell)
# reaches finish through $FAILMARK.
fail() { echo "FAIL: $*"; FAILED=1; echo "$*" >>"$FAILMARK"; }
die() { echo "FAIL: $*"; echo "$*" >>"$FAILMARK"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }
finish() {
	[ -s "$FAILMARK" ] && [ "$FAILED" = 0 ] && { echo "FAIL: (noted in a subshell) $(tr '\n' ';' <"$FAILMARK")"; FAILED=1; }
	[ "$FAILED" = 0 ] && { echo "PASS: $TEST_NAME"; exit 0; }
	exit 1
}

# jqf FILE FILTER: jq -c over a trace (one value per line).
jqf() { jq -c "$2" "$1"; }

# full FILE: the path of a copy of the trace FILE (FILE.full) whose
# exception.summary records carry their exception's id, type, message and
# hresult, taken from its exception.throw as the readers do (a summary
# names its exception by id only, or by its error, clrtrace-records(5)).
full() {
	jq -c -n 'foreach inputs as $r ({};
	    if $r.event == "exception.throw" then .["\($r.pid):\($r.exception.id)"] = $r.exception else . end;
	    . as $t | $r | if .event == "exception.summary"
	      then .exception = (.exception // {id: .error}) | .exception = ($t["\(.pid):\(.exception.id)"] // {}) + .exception
	      else . end)' "$1" >"$1.full"
	echo "$1.full"
}

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
