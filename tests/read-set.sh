#!/bin/sh
# The readers take what run wrote (issue 29 point 4): a rotated set named by
# its PATH or its directory (STEM.N.jsonl[.zst] by N, then PATH), several
# traces one after the other, a lone .zst; each reads as the concatenation
# of its files would.  check passes a set without flagging its file
# boundaries, counts every record, and tells a missing file (loss) from
# the ones keep removed (retention).  A damaged .zst is one line.
. "${top_srcdir:-.}/tests/lib.sh"

command -v zstd >/dev/null || skip "needs zstd (setup.sh installs it)"
dll=$(build_program FilterLoad)

# cat_set DIR: every record of the set DIR/t.jsonl, oldest file first, as
# zstdcat and cat give them (a number there twice: its .zst)
cat_set() {
	for i in $(ls "$1" | sed -n 's/^t\.\([0-9]*\)\.jsonl\(\.zst\)\{0,1\}$/\1/p' | sort -n -u); do
		if [ -e "$1/t.$i.jsonl.zst" ]; then zstdcat "$1/t.$i.jsonl.zst"; else cat "$1/t.$i.jsonl"; fi
	done
	cat "$1/t.jsonl"
}

# same WHAT A B: files A and B are the same
same() {
	cmp -s "$2" "$3" && ok "$1" || fail "$1: $(diff "$2" "$3" | head -5)"
}

# one_line WHAT CMD...: exit status not 0, one line on stderr
one_line() {
	local what=$1
	shift
	"$CLRTRACE" "$@" >"$OUT/one.out" 2>"$OUT/one.err"
	st=$?
	[ "$st" != 0 ] && [ "$(wc -l <"$OUT/one.err")" = 1 ] && grep -q '^clrtrace: ' "$OUT/one.err" &&
		ok "$what: one line, exit $st: $(cat "$OUT/one.err")" ||
		fail "$what: exit $st, stderr: $(head -5 "$OUT/one.err")"
}

# a real rotated set: every file kept, the rotated ones compressed
d=$OUT/set
rm -rf "$d" && mkdir -p "$d"
"$CLRTRACE" run -o "file:$d/t.jsonl,max-size=256K,keep=0" -- dotnet "$dll" 8 150 >"$OUT/run.stdout" 2>"$OUT/run.stderr" ||
	fail "run failed: $(cat "$OUT/run.stderr")"
n=$(ls "$d" | grep -c '^t\.[0-9]*\.jsonl\.zst$')
[ "$n" -ge 3 ] && ok "$n files rotated out, compressed" || fail "$n .zst files: $(ls "$d")"
cat_set "$d" >"$OUT/cat.jsonl"
records=$(grep -c . "$OUT/cat.jsonl")

# check: the set passes, every record counted, named by PATH or directory
for what in "$d/t.jsonl" "$d"; do
	"$CLRTRACE" check "$what" >"$OUT/check.out" 2>"$OUT/check.err" && ok "check $what passes" ||
		fail "check $what: $(head -5 "$OUT/check.out")"
	expect "check $what: every record counted" "$(sed -n 's/.*: \([0-9]*\) records,.*/\1/p' "$OUT/check.err")" "$records"
done

# stats, view and export: the set reads as its concatenation
"$CLRTRACE" stats --json "$d/t.jsonl" >"$OUT/set.stats" || fail "stats on the set: exit $?"
"$CLRTRACE" stats --json "$OUT/cat.jsonl" >"$OUT/cat.stats" || fail "stats on the concatenation: exit $?"
same "stats: the set is its concatenation" "$OUT/set.stats" "$OUT/cat.stats"
expect "stats: the set's records" "$(jq .records "$OUT/set.stats")" "$records"
"$CLRTRACE" stats "$d" >"$OUT/set.stats.txt" && "$CLRTRACE" stats "$OUT/cat.jsonl" >"$OUT/cat.stats.txt" ||
	fail "stats text: exit $?"
same "stats: the directory is its concatenation" "$OUT/set.stats.txt" "$OUT/cat.stats.txt"
"$CLRTRACE" view --color=never "$d/t.jsonl" >"$OUT/set.view" || fail "view on the set: exit $?"
"$CLRTRACE" view --color=never "$OUT/cat.jsonl" >"$OUT/cat.view" || fail "view on the concatenation: exit $?"
same "view: the set is its concatenation" "$OUT/set.view" "$OUT/cat.view"
"$CLRTRACE" export -F chrome "$d/t.jsonl" >"$OUT/set.chrome" || fail "export on the set: exit $?"
"$CLRTRACE" export -F chrome "$OUT/cat.jsonl" >"$OUT/cat.chrome" || fail "export on the concatenation: exit $?"
same "export: the set is its concatenation" "$OUT/set.chrome" "$OUT/cat.chrome"

# a file killed between compression's rename and the plain one's
# removal: both there, the same records, read once
d2=$OUT/twin
rm -rf "$d2" && cp -r "$d" "$d2"
zstdcat "$d2/t.2.jsonl.zst" >"$d2/t.2.jsonl"
"$CLRTRACE" check "$d2/t.jsonl" >"$OUT/check.out" 2>"$OUT/check.err" && ok "twin: check passes" ||
	fail "twin: check: $(head -5 "$OUT/check.out")"
expect "twin: its records read once" "$(sed -n 's/.*: \([0-9]*\) records,.*/\1/p' "$OUT/check.err")" "$records"

# a rotated file missing (not removed by keep): loss, said
rm "$d2/t.2.jsonl.zst" "$d2/t.2.jsonl"
"$CLRTRACE" check "$d2/t.jsonl" >"$OUT/check.out" 2>&1
st=$?
[ "$st" = 1 ] && grep -q 'seq gap: .* not explained' "$OUT/check.out" && grep -q '/t\.3\.jsonl\.zst:1: seq gap' "$OUT/check.out" &&
	ok "a missing file: a seq gap, at the next file's first line" || fail "a missing file: exit $st: $(head -5 "$OUT/check.out")"

# keep: the files removed are retention, not loss
d3=$OUT/keep
rm -rf "$d3" && mkdir -p "$d3"
"$CLRTRACE" run -o "file:$d3/t.jsonl,max-size=256K,keep=3" -- dotnet "$dll" 8 150 >"$OUT/run.stdout" 2>"$OUT/run.stderr" ||
	fail "run with keep=3 failed: $(cat "$OUT/run.stderr")"
expect "keep: 2 files rotated out and the current one" "$(ls "$d3" | grep -c '^t\..*jsonl')" 3
cat_set "$d3" >"$OUT/keep-cat.jsonl"
"$CLRTRACE" check "$d3" >"$OUT/check.out" 2>"$OUT/check.err" && ok "keep: check passes the set" ||
	fail "keep: check: $(head -5 "$OUT/check.out")"
expect "keep: every record counted" "$(sed -n 's/.*: \([0-9]*\) records,.*/\1/p' "$OUT/check.err")" \
	"$(grep -c . "$OUT/keep-cat.jsonl")"

# two separate traces: one after the other, as cat gives them
G="$top_srcdir/tests/golden/sample.jsonl"
cat "$G" "$OUT/cat.jsonl" >"$OUT/two.jsonl"
"$CLRTRACE" stats --json "$G" "$d/t.jsonl" >"$OUT/two.stats" || fail "stats on two traces: exit $?"
"$CLRTRACE" stats --json "$OUT/two.jsonl" >"$OUT/two-cat.stats" || fail "stats on their concatenation: exit $?"
same "two traces: stats as their concatenation" "$OUT/two.stats" "$OUT/two-cat.stats"
"$CLRTRACE" check "$G" "$d" >"$OUT/check.out" 2>"$OUT/check.err" && ok "two traces: check passes" ||
	fail "two traces: check: $(head -5 "$OUT/check.out")"
expect "two traces: every record counted" "$(sed -n 's/.*: \([0-9]*\) records,.*/\1/p' "$OUT/check.err")" \
	"$(grep -c . "$OUT/two.jsonl")"
"$CLRTRACE" view --color=never "$G" "$d/t.jsonl" >"$OUT/two.view" && "$CLRTRACE" view --color=never "$OUT/two.jsonl" >"$OUT/two-cat.view" ||
	fail "view on two traces: exit $?"
same "two traces: view as their concatenation" "$OUT/two.view" "$OUT/two-cat.view"
"$CLRTRACE" export -F chrome "$G" "$d/t.jsonl" >"$OUT/two.chrome" && jq -e '.traceEvents | length > 0' "$OUT/two.chrome" >/dev/null &&
	ok "two traces: export" || fail "two traces: export"

# a lone .zst: decompressed, as zstdcat gives it
zstd -q -c "$G" >"$OUT/lone.jsonl.zst"
"$CLRTRACE" stats --json "$OUT/lone.jsonl.zst" >"$OUT/lone.stats" && "$CLRTRACE" stats --json "$G" >"$OUT/plain.stats" ||
	fail "stats on a lone .zst: exit $?"
same "a lone .zst reads as its plain file" "$OUT/lone.stats" "$OUT/plain.stats"
"$CLRTRACE" check -q "$OUT/lone.jsonl.zst" && ok "check passes a lone .zst" || fail "check on a lone .zst"
"$CLRTRACE" view "$OUT/lone.jsonl.zst" | grep -q exception.throw && ok "view reads a lone .zst" || fail "view on a lone .zst"

# damaged .zst: one line, not 0
head -c 100 "$OUT/lone.jsonl.zst" >"$OUT/cut.jsonl.zst"
# (deterministic: random bytes after a good frame header can be a valid
# raw block, and what it decodes to is not a damaged-stream error)
(head -c 6 "$OUT/lone.jsonl.zst" && head -c 4000 /dev/zero | tr '\0' '\377') >"$OUT/bad.jsonl.zst"
printf 'not zstd at all\n' >"$OUT/text.jsonl.zst"
: >"$OUT/empty.jsonl.zst"
for f in cut bad text empty; do
	one_line "stats: $f.jsonl.zst" stats "$OUT/$f.jsonl.zst"
	one_line "view: $f.jsonl.zst" view "$OUT/$f.jsonl.zst"
done
one_line "export: a damaged .zst" export -F chrome "$OUT/bad.jsonl.zst"
"$CLRTRACE" check "$OUT/bad.jsonl.zst" >"$OUT/check.out" 2>&1
expect "check: a damaged .zst is one line, exit 1" "$? $(wc -l <"$OUT/check.out")" "1 1"
# damaged in the middle of a set: the records before it are read, then one line
d4=$OUT/damaged
rm -rf "$d4" && cp -r "$d" "$d4"
cp "$OUT/bad.jsonl.zst" "$d4/t.2.jsonl.zst"
"$CLRTRACE" stats "$d4" >"$OUT/one.out" 2>"$OUT/one.err"
st=$?
[ "$st" = 1 ] && [ "$(wc -l <"$OUT/one.err")" = 1 ] && grep -q 't\.2\.jsonl\.zst: not zstd data' "$OUT/one.err" &&
	ok "a damaged .zst in a set: named in one line" || fail "a damaged .zst in a set: exit $st: $(head -3 "$OUT/one.err")"

# a directory of several traces, a missing trace: one line
mkdir -p "$OUT/several" && cp "$G" "$OUT/several/a.jsonl" && cp "$G" "$OUT/several/b.jsonl"
one_line "a directory of two traces" stats "$OUT/several"
one_line "a missing trace" view "$OUT/nonexistent.jsonl"
mkdir -p "$OUT/emptydir"
one_line "a directory with no trace" check "$OUT/emptydir"
finish
