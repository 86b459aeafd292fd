#!/bin/sh
# A trace sent to a FIFO whose reader never reads (a stalled `journalctl`-
# like consumer, a stopped pager) never stops the program: once the pipe
# is full the records are counted lost, the program finishes as untraced,
# and run's summary says how many were lost and why.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program FilterLoad) || exit 1

mkfifo "$OUT/fifo"
# a reader that opens the FIFO and never reads from it
sleep 300 <"$OUT/fifo" &
reader=$!
trap 'kill $reader 2>/dev/null' EXIT
# 4 threads, 2,000 exceptions each: megabytes of records against a 64 KiB pipe
timeout -k 10 120 "$CLRTRACE" run -o "file:$OUT/fifo" -- dotnet "$dll" 4 2000 >"$OUT/prog.out" 2>"$OUT/run.err"
st=$?
expect "stalled reader: the program's exit status (124: it hung)" "$st" 0
grep -q '^done filterload threads=4 iterations=2000 caught=8000 finally=8000' "$OUT/prog.out" &&
	ok "stalled reader: the program did all its work" || fail "stalled reader: $(cat "$OUT/prog.out")"
grep -Eq "^clrtrace: trace sent to .*/fifo, not a regular file: nothing to count; [0-9]+ records lost: the reader of the pipe is not reading" "$OUT/run.err" &&
	ok "stalled reader: run says how many records were lost and why: $(tail -1 "$OUT/run.err")" ||
	fail "stalled reader: run said: $(cat "$OUT/run.err")"
finish
