# Running programs under the tracer (sourced by tests/lib.sh).
# free_port: a loopback TCP port nothing listens on now, from the kernel
# (two tests that picked ports from their pids could meet on one)
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# trace FILE [clrtrace run options] -- PROGRAM ARGS: run under the tracer
# with one file output; stdout/stderr of the program go to FILE.stdout/.stderr.
trace() {
	local file=$1; shift
	rm -f "$file"
	# a hung program must fail its test, not stall the suite
	timeout -k 10 600 "$CLRTRACE" run -o "file:$file" "$@" >"$file.stdout" 2>"$file.stderr"
}

# wait_gate NAME: until the program (tests/programs/Loss) prints "waiting"
# on $OUT/NAME.stdout for its gate file
wait_gate() {
	local i
	for i in $(seq 600); do
		grep -q waiting "$OUT/$1.stdout" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "$1: the program never reached its gate"
}

