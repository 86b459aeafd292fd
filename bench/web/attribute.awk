# bench/web/attribute.awk: where a service's CPU time goes, from
# `perf script -F tid,ip,sym,dso` of a DWARF call-graph profile
# (bench/web.sh -p).  Prints CPU us per request (-v hz=SAMPLE_RATE
# -v rq=REQUESTS -v name=TITLE):
#   - by the library of the sampled function (inlined code counted with the
#     library it was inlined into);
#   - for samples under a libclrtrace frame: by the outermost clrtrace
#     function (which callback, or the flusher) and by the library of the
#     innermost function;
#   - for samples in libcoreclr (which has no symbols here): by the first
#     named frame above them, mostly the managed method that called into
#     the runtime.

# lib(I): the library of frame I, or of the first frame above it that is
# not inlined.
function lib(i) {
	while (i < n && d[i] == "inlined")
		i++
	return d[i]
}

# top(ARR, K, TITLE): the K largest entries of ARR in us per request.
function top(arr, k, title,   key, cmd) {
	printf "  %s\n", title
	cmd = "sort -t '\t' -k1,1 -rn | head -n " k
	for (key in arr)
		printf "%.2f\t%s\n", arr[key] * u, key | cmd
	close(cmd)
}

# flush: count the sample read into s[] and d[] (leaf first).
function flush(   i, leaf, outer, who) {
	if (!n)
		return
	total++
	leaf = lib(1)
	bylib[leaf]++
	outer = 0
	for (i = n; i >= 1; i--)
		if (d[i] == "libclrtrace.so") {
			outer = i
			break
		}
	if (outer) {
		under++
		cb[s[outer]]++
		inner[leaf]++
	} else if (leaf == "libcoreclr.so") {
		who = "?"
		for (i = 2; i <= n; i++)
			if (s[i] != "[unknown]" && d[i] != "libcoreclr.so" && d[i] != "inlined") {
				who = s[i]
				break
			}
		# a JIT-compiled method: its class and name, without the signature
		sub(/\(.*/, "", who)
		sub(/.*\] /, "", who)
		clr[who]++
	}
	n = 0
}

# a sample starts with its thread id, and its frames follow: "\tADDR SYM (DSO)"
/^ *[0-9]+ *$/ { flush(); next }
/^$/ { flush(); next }
{
	n++
	line = $0
	sub(/^[ \t]+[0-9a-f]+ /, "", line)
	dso = line
	sub(/.*\(/, "", dso)
	sub(/\)$/, "", dso)
	sub(/.*\//, "", dso)
	if (dso ~ /^perf-[0-9]+\.map$/)
		dso = "JIT-compiled code"
	sym = line
	sub(/ \([^()]*\)$/, "", sym)
	s[n] = sym
	d[n] = dso
}
END {
	flush()
	u = (rq > 0 && hz > 0) ? 1e6 / hz / rq : 0
	printf "# %s: %d samples at %d Hz, %d requests: %.1f us CPU per request, %.1f under libclrtrace frames\n",
		name, total, hz, rq, total * u, under * u
	top(bylib, 12, "by library (us per request):")
	if (under) {
		top(cb, 12, "under libclrtrace, by the outermost clrtrace function:")
		top(inner, 8, "under libclrtrace, by the library of the innermost function:")
	}
	top(clr, 15, "in libcoreclr, by the first named frame above:")
}
