#!/bin/sh
# make install into a temporary prefix and into a DESTDIR: the installed
# clrtrace finds its own library (no CLRTRACE_LIBRARY) and traces a real
# program as the build tree's does; the man page names the install's paths;
# the system's journal catalog database is left alone (the command is
# printed instead); bash completion and the docs land in Debian's places;
# the completion completes; the jq recipes run; make uninstall removes it all.
. "${top_srcdir:-.}/tests/lib.sh"
command -v make >/dev/null 2>&1 || skip "make is needed"

dll=$(build_program Scenarios) || die "could not build Scenarios"
dotnet "$dll" same >"$OUT/untraced.stdout" 2>&1 || fail "untraced run exited $?"
db=/var/lib/systemd/catalog/database
db_before=$(stat -c %Y "$db" 2>/dev/null || echo none)

# installed NAME ROOT BIN: the installed clrtrace at BIN traces a real program
installed() {
	local name=$1 root=$2 bin=$3
	expect "$name: env names its own library" \
		"$(env -u CLRTRACE_LIBRARY "$bin" env | sed -n 's/^export CORECLR_PROFILER_PATH=//p')" "'$root/lib/clrtrace/libclrtrace.so'"
	env -u CLRTRACE_LIBRARY "$bin" run -o "file:$OUT/$name.jsonl" -- dotnet "$dll" same >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"
	expect "$name: the program's exit status" "$?" 0
	expect "$name: the program's output as untraced" "$(cat "$OUT/$name.stdout")" "$(cat "$OUT/untraced.stdout")"
	expect "$name: one exception traced" \
		"$(jq -r 'select(.event=="exception.summary") | .exception.type + " " + .outcome' "$(full "$OUT/$name.jsonl")" 2>/dev/null)" \
		"Scenarios.AlphaException caught"
	check_trace "$OUT/$name.jsonl"
}

# 1. a private prefix
P="$OUT/prefix"
make -C "$top_builddir" install prefix="$P" >"$OUT/install.log" 2>&1 || { tail -20 "$OUT/install.log"; die "make install prefix=$P failed"; }
for f in bin/clrtrace lib/clrtrace/libclrtrace.so share/man/man1/clrtrace.1 share/clrtrace/schemas/record.schema.json \
	lib/systemd/catalog/clrtrace.catalog share/bash-completion/completions/clrtrace \
	share/doc/clrtrace/journal.md share/doc/clrtrace/clrtrace.conf share/doc/clrtrace/jq.md; do
	[ -f "$P/$f" ] && ok "prefix: $f installed" || fail "prefix: $f missing"
done
grep -q "^ *journalctl --update-catalog$" "$OUT/install.log" && fail "prefix: the system's catalog database was rebuilt" ||
	ok "prefix: journalctl --update-catalog not run"
grep -q -F "the journal catalog is in $P/lib/systemd/catalog; for journalctl -x, put it in /usr/lib/systemd/catalog and run: journalctl --update-catalog" "$OUT/install.log" &&
	ok "prefix: says what to run for the catalog" || fail "prefix: no word about the catalog"
expect "prefix: the man page names no other prefix" "$(grep -c '/usr/local' "$P/share/man/man1/clrtrace.1")" 0
grep -q -F "$P/lib/clrtrace/libclrtrace.so" "$P/share/man/man1/clrtrace.1" && ok "prefix: the man page names the library's path" ||
	fail "prefix: the man page does not name $P/lib/clrtrace/libclrtrace.so"
installed prefix "$P" "$P/bin/clrtrace"

# 2. the tree moved elsewhere: still its own library
cp -a "$P" "$OUT/moved"
installed moved "$OUT/moved" "$OUT/moved/bin/clrtrace"

# 3. a DESTDIR staging (the configured prefix under it)
D="$OUT/destdir"
make -C "$top_builddir" install DESTDIR="$D" >"$OUT/destdir.log" 2>&1 || { tail -20 "$OUT/destdir.log"; die "make install DESTDIR=$D failed"; }
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
[ -x "$D$prefix/bin/clrtrace" ] && ok "destdir: clrtrace in $D$prefix/bin" || fail "destdir: no $D$prefix/bin/clrtrace"
grep -q "^ *journalctl --update-catalog$" "$OUT/destdir.log" && fail "destdir: the catalog database was rebuilt" ||
	ok "destdir: journalctl --update-catalog not run"
grep -q -F "the journal catalog is in $D$prefix/lib/systemd/catalog" "$OUT/destdir.log" && ok "destdir: says what to run for the catalog" ||
	fail "destdir: no word about the catalog"
grep -q -F "$prefix/lib/clrtrace/libclrtrace.so" "$D$prefix/share/man/man1/clrtrace.1" && ! grep -q -F "$D" "$D$prefix/share/man/man1/clrtrace.1" &&
	ok "destdir: the man page names the final paths" || fail "destdir: the man page's paths"
installed destdir "$D$prefix" "$D$prefix/bin/clrtrace"
expect "the system's catalog database untouched" "$(stat -c %Y "$db" 2>/dev/null || echo none)" "$db_before"

# 4. bash completion, as bash calls it
if command -v bash >/dev/null 2>&1; then
	mkdir -p "$OUT/comp" && : >"$OUT/comp/a.jsonl" && : >"$OUT/comp/b.txt"
	# complete WORDS...: what the completion offers for the last word
	complete_words() {
		(cd "$OUT/comp" && PATH="$P/bin:$PATH" bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _clrtrace; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
			"$P/share/bash-completion/completions/clrtrace" "$@")
	}
	expect "completion: commands" "$(complete_words clrtrace vi)" "view "
	expect "completion: view -e exception.th" "$(complete_words clrtrace view -e exception.th)" "exception.throw "
	expect "completion: view -e a comma list" "$(complete_words clrtrace view -e gc,exception.un)" "gc,exception.unhandled gc,exception.unwind gc,exception.unwind.frame "
	expect "completion: run -e +g" "$(complete_words clrtrace run -e +g)" "+gc "
	expect "completion: view -o ca" "$(complete_words clrtrace view -o ca)" "caught "
	expect "completion: view --co (options from --help)" "$(complete_words clrtrace view --co)" "--color "
	expect "completion: stats options (the option column of --help)" "$(complete_words clrtrace stats -)" "--help --identifier --journal --journal-dir --journal-since --journal-until --json --top --unit -h -j -n -u "
	expect "completion: trace files" "$(complete_words clrtrace view '')" "a.jsonl "
	expect "completion: export --format" "$(complete_words clrtrace export --format '')" "chrome "
else
	ok "completion: not tried (no bash)"
fi

# 5. the jq recipes run on a real trace
cp "$OUT/prefix.jsonl" "$OUT/t.jsonl"
sed -n 's/^    \(jq .*t\.jsonl.*\)$/\1/p' "$P/share/doc/clrtrace/jq.md" >"$OUT/recipes"
expect "jq recipes found" "$(wc -l <"$OUT/recipes" | tr -d ' ')" 5
while read -r recipe; do
	(cd "$OUT" && sh -c "$recipe") >"$OUT/recipe.out" 2>&1 && ! grep -q '^jq: error' "$OUT/recipe.out" &&
		ok "recipe runs: $recipe" || fail "recipe: $recipe: $(head -2 "$OUT/recipe.out")"
done <"$OUT/recipes"

# 6. make uninstall leaves no file behind
make -C "$top_builddir" uninstall prefix="$P" >"$OUT/uninstall.log" 2>&1 || fail "make uninstall failed"
expect "uninstall: no file left" "$(find "$P" -type f | wc -l | tr -d ' ')" 0
finish
