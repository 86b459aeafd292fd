#!/bin/bash
# The metadata reader (src/common/metadata.c, through tests/unit/md-dump)
# against the runtime's own reflection (tests/programs/MdNames) over the
# same files: System.Private.CoreLib.dll and System.Linq.dll of each
# runtime, MdNames.dll itself (nested, generic, nested in generic and
# compiler-generated types) and an assembly it writes with names C# cannot
# (characters reflection escapes, global members; .NET 9 and 10).  Every
# line reflection prints for a TypeDef, MethodDef, field or the MVID must
# be one md-dump prints, the methods with [UnmanagedCallersOnly] the same
# both ways, and reflection must have resolved nearly every row
# the reader lists (so the comparison covers them).  The same answers from
# the images laid out as mapped.  Every other assembly of each runtime is
# read too, without reflection (md-dump's own cross-checks).  Every
# truncation and many corruptions of MdNames.dll read without a fault; bad
# input gives one error line and status 1.  Whether an image carries
# ReadyToRun code: the framework's assemblies yes, MdNames' own no.
. "$(dirname "$0")/lib.sh"

DUMP="$top_builddir/tests/unit/md-dump"
[ -x "$DUMP" ] || die "$DUMP is not built"

# count KIND FILE: the lines of FILE for KIND (T, M, F or U)
count() { grep -c "^$1 " "$2"; }

# compare V WHAT CMD [ARG]: MdNames ARG (default WHAT) on .NET V (CMD runs
# it) and md-dump of the file it read
compare() {
	local v=$1 what=$2 cmd=$3 arg=${4:-$2} base="$OUT/net$1-$2" path kind ref got missing
	# shellcheck disable=SC2086 # cmd is words
	$cmd "$arg" >"$base.reflection" 2>"$base.reflection.err" ||
		{ fail ".NET $v $what: MdNames exited with $? ($(tail -1 "$base.reflection.err"))"; return; }
	path=$(sed -n 's/^P //p' "$base.reflection")
	expect ".NET $v $what: reflection ran on .NET $v" "$(sed -n 's/^R \([0-9.]*\)$/\1/p' "$base.reflection")" "$(rt_version "$v")"
	[ -f "$path" ] || { fail ".NET $v $what: MdNames read no file ('$path')"; return; }
	"$DUMP" "$path" >"$base.reader" 2>"$base.reader.err" ||
		fail ".NET $v $what: md-dump $path: status $?: $(head -3 "$base.reader.err" | tr '\n' ' ')"
	grep -v '^[PR] ' "$base.reflection" | LC_ALL=C sort >"$base.reflection.sorted"
	LC_ALL=C sort "$base.reader" >"$base.reader.sorted"
	missing=$(LC_ALL=C comm -23 "$base.reflection.sorted" "$base.reader.sorted")
	if [ -z "$missing" ]; then
		ok ".NET $v $what: all $(wc -l <"$base.reflection.sorted") lines of reflection are the reader's"
	else
		fail ".NET $v $what: $(echo "$missing" | wc -l) lines of reflection the reader does not give (first: $({ echo "$missing" | grep '^T '; echo "$missing" | grep -v '^T '; } | head -5 | tr '\n' ';')); see $base.*"
	fi
	for kind in T M F; do
		ref=$(count "$kind" "$base.reflection.sorted")
		got=$(count "$kind" "$base.reader.sorted")
		# what reflection could not resolve is not compared: it must be rare
		if [ "$got" -gt 0 ] && [ $((ref * 100)) -ge $((got * 99)) ] && [ "$ref" -le "$got" ]; then
			ok ".NET $v $what: $kind: $ref of the reader's $got rows compared"
		else
			fail ".NET $v $what: $kind: only $ref of the reader's $got rows compared ($(tail -1 "$base.reflection.err"))"
		fi
	done
	expect ".NET $v $what: the MVID" "$(grep '^V ' "$base.reader")" "$(grep '^V ' "$base.reflection")"
	# ReadyToRun code (md_ready_to_run): the framework's is precompiled,
	# the test program and what it emits are IL only
	case $what in
	System.*) expect ".NET $v $what: has ReadyToRun code" "$(sed -n 's/^N \([01]\) .*/\1/p' "$base.reader")" 1 ;;
	*) expect ".NET $v $what: IL only" "$(grep '^N ' "$base.reader")" "N 0 0" ;;
	esac
	# the methods with [UnmanagedCallersOnly]: the same both ways
	expect ".NET $v $what: the [UnmanagedCallersOnly] methods ($(count U "$base.reader.sorted"))" \
		"$(grep '^U ' "$base.reader.sorted" | tr '\n' ' ')" "$(grep '^U ' "$base.reflection.sorted" | tr '\n' ' ')"
	# the same read from the image laid out as the loader maps it
	if "$DUMP" --mapped "$path" >"$base.mapped" 2>"$base.mapped.err" && cmp -s "$base.mapped" "$base.reader"; then
		ok ".NET $v $what: the same from the mapped layout, and its extent in both"
	else
		fail ".NET $v $what: md-dump --mapped differs: $(head -3 "$base.mapped.err" | tr '\n' ' ')$(diff "$base.reader" "$base.mapped" | head -3 | tr '\n' ' ')"
	fi
}

# sweep V DIR: every assembly of the runtime in DIR, without reflection:
# md-dump's own cross-checks (finds back, owners, misses) and the same
# answers from the mapped layout
sweep() {
	local v=$1 dir=$2 f n=0 bad=""
	for f in "$dir"/*.dll; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		if ! "$DUMP" "$f" >"$OUT/sweep.file" 2>"$OUT/sweep.err" ||
			! "$DUMP" --mapped "$f" >"$OUT/sweep.mapped" 2>>"$OUT/sweep.err" ||
			! cmp -s "$OUT/sweep.file" "$OUT/sweep.mapped"; then
			bad="$bad $(basename "$f") ($(head -1 "$OUT/sweep.err"))"
		fi
	done
	if [ "$n" -ge 100 ] && [ -z "$bad" ]; then
		ok ".NET $v: all $n assemblies of $dir read, consistent in both layouts"
	else
		fail ".NET $v: $n assemblies in $dir; not read or inconsistent:$bad"
	fi
}

ran=0
for v in $(test_runtimes); do
	cmd=$(program_cmd MdNames "$v") || die "could not build MdNames for .NET $v"
	for what in System.Private.CoreLib System.Linq self; do
		compare "$v" "$what" "$cmd"
	done
	sweep "$v" "$(dirname "$(sed -n 's/^P //p' "$OUT/net$v-System.Private.CoreLib.reflection")")"
	# names C# cannot write, in an assembly MdNames writes (.NET 9 on)
	if [ "$v" = 8 ]; then
		echo "note: .NET 8: no PersistedAssemblyBuilder: the emitted names are compared on .NET 9 and 10"
	elif $cmd emit "$OUT/net$v-MdEmitted.dll" 2>"$OUT/net$v-emit.err"; then
		compare "$v" emitted "$cmd" "$OUT/net$v-MdEmitted.dll"
	else
		fail ".NET $v: MdNames could not write MdEmitted.dll: $(head -3 "$OUT/net$v-emit.err" | tr '\n' ' ')"
	fi
	ran=$((ran + 1))
	[ "$v" = 10 ] && self="$OUT/net10-self.reflection"
done
[ "$ran" -gt 0 ] || die "no runtime to test"

# the hard cases are in the comparison (names as reflection gives them)
for want in 'T [0-9]* MdNames.Outer`1+Inner`1$' 'T [0-9]* MdNames.Outer`1+Plain+<GetEnumerator>d__0$' \
	'T [0-9]* MdNames.Deep+Level1+Level2+Level3$' 'T [0-9]* <>f__AnonymousType0`2$' 'T [0-9]* NoNamespace+Nested$' \
	'T 1 <Module>$' 'M [0-9]* MdNames.Cases+<>c__DisplayClass0_0.<Run>b__0$' 'M [0-9]* MdNames.Explicit.System.IDisposable.Dispose$' \
	'F [0-9]* Ĳ$' 'F [0-9]* <>1__state$' 'U [0-9]*$'; do
	grep -q "^$want" "$self" && ok "compared: $want" || fail "MdNames printed no line like '$want'"
done
grep -q '^U ' "$OUT/net10-System.Private.CoreLib.reflection" && ok "compared: CoreLib's own [UnmanagedCallersOnly] methods" ||
	fail "reflection found no [UnmanagedCallersOnly] method in CoreLib"
for want in 'T [0-9]* Ns.Plus\\+Name$' 'T [0-9]* Ns.Comma\\,Name+Inner\\+Odd$' 'T [0-9]* Ns.Outer+Inner.Dotted$' \
	'M [0-9]* <Module>.GlobalMethod$' 'F 1 GlobalData$' 'F [0-9]* field,with+odd\[chars\]$'; do
	grep -q "^$want" "$OUT/net10-emitted.reflection" && ok "compared: $want" || fail "MdNames printed no line like '$want' for MdEmitted.dll"
done

# every truncation and many corruptions of MdNames.dll and of its metadata
# root: errors, or (truncated) the whole's answers; never a read outside
# (a fault, or under make check-sanitizers an ASan report)
out=$("$DUMP" mangle "$(sed -n 's/^P //p' "$self")" 2>&1)
st=$?
if [ "$st" = 0 ] && echo "$out" | grep -q ' 0 wrong$'; then
	echo "$out" | sed "s|^.*/||; s|^|ok: |"
else
	fail "md-dump mangle: status $st: $(echo "$out" | head -12 | tr '\n' ';')"
fi

# bad input: one line on stderr, status 1, nothing on stdout
dll=$(sed -n 's/^P //p' "$self")
bad() {
	local what=$1 file=$2 st=0
	"$DUMP" "$file" >"$OUT/bad.out" 2>"$OUT/bad.err" || st=$?
	if [ "$st" = 1 ] && [ ! -s "$OUT/bad.out" ] && [ "$(wc -l <"$OUT/bad.err")" = 1 ]; then
		ok "$what: $(sed "s|$OUT/||" "$OUT/bad.err")"
	else
		fail "$what: status $st, $(wc -l <"$OUT/bad.out") lines out, stderr: $(head -3 "$OUT/bad.err" | tr '\n' ' ')"
	fi
}
size=$(stat -c %s "$dll")
head -c $((size / 2)) "$dll" >"$OUT/half.dll"
bad "half an assembly" "$OUT/half.dll"
head -c 300 "$dll" >"$OUT/headers.dll"
bad "its headers alone" "$OUT/headers.dll"
bad "a portable PDB (metadata, not PE)" "${dll%.dll}.pdb"
bad "an ELF file" "$DUMP"
: >"$OUT/empty.dll"
bad "an empty file" "$OUT/empty.dll"
bad "a missing file" "$OUT/missing.dll"
bad "a directory" "$OUT"

finish
