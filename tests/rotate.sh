#!/bin/bash
# Bounded disk (issue 29): a file sink with max-size rotates at a record
# boundary into STEM.N.jsonl.zst, seq runs on across the files, keep removes
# the oldest as retention (trace.rotated says which seq ranges), a kill -9
# right after a rotation loses nothing, and the default output on a small
# disk stops at 90 % full, saying so.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

[ "$(id -u)" = 0 ] || die "needs root to mount a small tmpfs"
command -v zstdcat >/dev/null || die "needs zstd (setup.sh installs it)"
if [ "${CLRTRACE_ROTATE_PRIVATE:-0}" != 1 ]; then
	unshare -m --propagation private true 2>/dev/null || die "needs unshare -m for a private tmpfs"
	CLRTRACE_ROTATE_PRIVATE=1 exec unshare -m --propagation private bash "$0" "$@"
fi
dll=$(build_program FilterLoad)
threads=8

# all DIR STEM: every record of a rotated set, oldest file first
all() {
	local f
	# (not a .zst.tmp a helper killed with its process left; and a file
	# killed between its compression's rename and the removal of the
	# plain one is there twice, the same records: the .zst is taken)
	for f in $(ls "$1/$2".*.jsonl "$1/$2".*.jsonl.zst 2>/dev/null | sed 's/.*\.\([0-9]*\)\.jsonl.*/\1 &/' | sort -n -k1,1 -k2,2r | awk '!seen[$1]++' | cut -d' ' -f2); do
		case $f in *.zst) zstdcat "$f" ;; *) cat "$f" ;; esac
	done
	cat "$1/$2.jsonl"
}

# accounted FILE: "ok" when every seq 1..max of the trace is a record, in
# a trace.dropped count or in a removed file's range
accounted() {
	jq -s -r '(map(select(.event != "trace.rotated") | .seq) | unique) as $s
		| ([.[] | select(.event == "trace.dropped") | .count] | add // 0) as $d
		| ([.[] | select(.event == "trace.rotated") | .removed_through // 0] | max // 0) as $t
		| ($s | max) as $m
		| if ($s | length) + $d == $m - $t and ($s | min) == $t + 1 then "ok"
		  else "records \($s | length) dropped \($d) removed through \($t) max \($m) min \($s | min)" end' "$1"
}

# 1. rotation at 1 MiB under 8 throwing threads, every file kept; a second
# sink without rotation gets the same records: the set read back (zstdcat)
# is that file, trace.rotated aside
d=$OUT/all; mkdir -p "$d"
"$CLRTRACE" run -o "file:$d/t.jsonl,max-size=1M" -o "file:$d/plain.jsonl" -- dotnet "$dll" $threads 2000 \
	>"$d/stdout" 2>"$d/stderr" || fail "rotation: run failed: $(cat "$d/stderr")"
n=$(ls "$d"/t.*.jsonl.zst 2>/dev/null | wc -l)
[ "$n" -ge 3 ] && ok "rotation: $n files rotated out, compressed" || fail "rotation: $n .zst files: $(ls "$d")"
expect "rotation: no uncompressed file left" "$(ls "$d"/t.*.jsonl 2>/dev/null | wc -l)" 0
big=0
for f in "$d"/t.*.jsonl.zst; do
	s=$(zstdcat "$f" | wc -c)
	[ "$s" -le $((1024 * 1024)) ] || big=$((big + 1))
	zstd -q -t "$f" || fail "rotation: $f does not test whole"
done
expect "rotation: no file past max-size" "$big" 0
all "$d" t >"$d/set.jsonl"
grep -v '"event":"trace.rotated"' "$d/set.jsonl" >"$d/set-records.jsonl"
cmp -s "$d/set-records.jsonl" "$d/plain.jsonl" && ok "rotation: the set read back is the unrotated trace, byte for byte" ||
	fail "rotation: the set differs from the unrotated trace ($(wc -l <"$d/set-records.jsonl") / $(wc -l <"$d/plain.jsonl") lines)"
expect "rotation: seq accounted" "$(accounted "$d/set.jsonl")" ok
starts=0
for f in "$d"/t.*.jsonl.zst; do
	[ "$(zstdcat "$f" | head -1 | jq -r .event)" = trace.rotated ] && starts=$((starts + 1))
done
[ "$(head -1 "$d/t.jsonl" | jq -r .event)" = trace.rotated ] && starts=$((starts + 1))
expect "rotation: each file but the first starts with trace.rotated" "$starts" "$n"
"$CLRTRACE" check -q "$d/set.jsonl" >"$d/check" 2>&1 && ok "rotation: clrtrace check passes the set" ||
	fail "rotation: check: $(head -5 "$d/check")"
"$CLRTRACE" check -q "$d/t.jsonl" >"$d/check1" 2>&1 && ok "rotation: clrtrace check passes the last file alone" ||
	fail "rotation: check of the last file: $(head -5 "$d/check1")"

# 2. keep=3: two files rotated out stay; trace.rotated names the removed
# ones and their seq ranges; seq accounted with them
d=$OUT/keep; mkdir -p "$d"
"$CLRTRACE" run -o "file:$d/t.jsonl,max-size=512K,keep=3" -- dotnet "$dll" $threads 2000 \
	>"$d/stdout" 2>"$d/stderr" || fail "keep: run failed: $(cat "$d/stderr")"
expect "keep: 2 files rotated out and the current one" "$(ls "$d" | grep -c '^t\..*jsonl')" 3
all "$d" t >"$d/set.jsonl"
removed=$(jq -s '[.[] | select(.event == "trace.rotated") | .removed_files] | add' "$d/set.jsonl")
[ "$(zstdcat "$d"/t.*.jsonl.zst | head -1 | jq -r .event)" = trace.rotated ] && [ "$removed" -ge 1 ] &&
	ok "keep: trace.rotated told of removed files" || fail "keep: removed $removed"
# the removed ranges are those of the records not in the set
expect "keep: the kept files begin right after what was removed" \
	"$(jq -s -r '([.[] | select(.event == "trace.rotated") | .removed_through] | max) + 1 == ([.[] | select(.event != "trace.rotated") | .seq] | min)' "$d/set.jsonl")" true
expect "keep: seq accounted, removed files as retention" "$(accounted "$d/set.jsonl")" ok
grep -q 'rotation removed' "$d/stderr" && ok "keep: the summary says rotation removed files" ||
	fail "keep: summary: $(cat "$d/stderr")"
# stats reads the set by its name and tells retention from loss
st=$("$CLRTRACE" stats --json "$d/t.jsonl" 2>&1)
expect "keep: stats --json gives the retention" \
	"$(jq -c --argjson n "$removed" '[.retention.files_removed == $n, .retention.removed_through > 0, .dropped.records]' <<<"$st" 2>&1)" \
	"[true,true,0]"
"$CLRTRACE" stats "$d/t.jsonl" 2>&1 | grep -q "^Retention: $removed rotated file" &&
	ok "keep: stats says the removed files are retention" || fail "keep: stats text: $("$CLRTRACE" stats "$d/t.jsonl" 2>&1 | tail -4)"

# 3. kill -9 right after a rotation: the mirror merges into the new file
# only what is in no file yet
d=$OUT/kill; mkdir -p "$d"
"$CLRTRACE" run -o "file:$d/t.jsonl,max-size=256K,keep=0" -- dotnet "$dll" $threads 200000 \
	>"$d/stdout" 2>"$d/stderr" &
run=$!
for i in $(seq 1 3000); do
	[ -e "$d/t.3.jsonl" ] || [ -e "$d/t.3.jsonl.zst" ] && break
	sleep 0.01
done
pkill -KILL -P "$run" -x dotnet 2>/dev/null || kill -KILL $(pgrep -P "$run") 2>/dev/null
wait $run
sleep 0.5 # the helper thread died with the process: what it left
all "$d" t >"$d/set.jsonl"
lines=$(grep -vc '"event":"trace.rotated"' "$d/set.jsonl")
[ "$lines" -gt 1000 ] && ok "kill -9: $lines records in the set" || fail "kill -9: $lines records: $(cat "$d/stderr")"
expect "kill -9: no seq twice" "$(jq -r 'select(.event != "trace.rotated") | .seq' "$d/set.jsonl" | sort -n | uniq -d | wc -l)" 0
expect "kill -9: seq accounted" "$(accounted "$d/set.jsonl")" ok
expect "kill -9: no mirror left" "$(ls "$d" | grep -c pending)" 0

# 4. a storm on a 24 MiB tmpfs with the default output: never past 90 %
# full; the loss is counted and said
MNT=$OUT/mnt; mkdir -p "$MNT"
mount -t tmpfs -o size=24m tmpfs "$MNT" || die "cannot mount a tmpfs"
(cd "$MNT" && exec "$CLRTRACE" run -- dotnet "$dll" $threads 40000) >"$OUT/storm.stdout" 2>"$OUT/storm.stderr" &
run=$!
max=0
# used, in tenths of a percent of the size (df's own percent rounds up)
used() { df -B1 --output=used,size "$MNT" | tail -1 | awk '{ print int($1 * 1000 / $2) }'; }
while kill -0 $run 2>/dev/null; do
	u=$(used)
	[ "$u" -gt "$max" ] && max=$u
	sleep 0.05
done
wait $run
u=$(used)
[ "$u" -gt "$max" ] && max=$u
[ "$max" -le 900 ] && [ "$max" -ge 800 ] && ok "storm: the disk filled to $max ‰, not past 90 %" ||
	fail "storm: the disk reached $max ‰: $(ls -la "$MNT")"
grep -q 'less than 10% of the file system (at most 4G) free' "$OUT/storm.stderr" && ok "storm: the loss is said" ||
	fail "storm: stderr: $(cat "$OUT/storm.stderr")"
f=$(ls "$MNT"/clrtrace-*.jsonl | head -1)
bad=$(jq -R 'fromjson? // "BAD" | select(. == "BAD")' "$f" | wc -l)
expect "storm: every line of the trace parses" "$bad" 0
umount "$MNT"
finish
