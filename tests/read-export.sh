#!/bin/sh
# clrtrace export --format chrome: the output follows the Chrome trace
# event format's rules (JSON object with traceEvents; ph/ts/pid/tid; X
# with dur; i with scope; thread_name metadata for every thread; X events
# nest per thread) and keeps every record.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Sample)
t="$OUT/all.jsonl"
trace "$t" -e all -- dotnet "$dll" || fail "traced Sample exited $?"
"$CLRTRACE" export --format chrome "$t" >"$OUT/all.json" || fail "export exit status $?"
cat >"$OUT/rules.py" <<'PY'
import json, sys
from collections import defaultdict
d = json.load(open(sys.argv[1]))
recs = [json.loads(l) for l in open(sys.argv[2])]
ev = d["traceEvents"]
bad = []
assert isinstance(ev, list)
threads, named = set(), set()
for e in ev:
    for k, ty in (("name", str), ("ph", str), ("pid", int), ("tid", int), ("ts", (int, float))):
        if not isinstance(e.get(k), ty): bad.append(f"{k} missing or mistyped: {e}")
    if e["ph"] not in ("X", "i", "M"): bad.append(f"unexpected ph {e['ph']}")
    if e["ph"] == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0): bad.append(f"X without dur: {e}")
    if e["ph"] == "i" and e.get("s") not in ("t", "p", "g"): bad.append(f"i without scope: {e}")
    if e["ph"] != "M": threads.add((e["pid"], e["tid"]))
    if e["ph"] == "M" and e["name"] == "thread_name":
        if not isinstance(e.get("args", {}).get("name"), str): bad.append("thread_name without args.name")
        named.add((e["pid"], e["tid"]))
    if e["ts"] < 0: bad.append(f"negative ts: {e}")
if threads - named: bad.append(f"threads without thread_name: {threads - named}")
# X events nest per thread (no partial overlap)
per = defaultdict(list)
for e in ev:
    if e["ph"] == "X": per[(e["pid"], e["tid"])].append((e["ts"], -e["dur"], e["ts"] + e["dur"], e["name"]))
for k, xs in per.items():
    xs.sort(); stack = []
    for ts, nd, end, name in xs:
        while stack and stack[-1] <= ts + 1e-3: stack.pop()
        if stack and end > stack[-1] + 1e-3: bad.append(f"{k}: {name} overlaps its parent"); break
        stack.append(end)
# every record is there: a begin/end pair is one X
begins = sum(1 for r in recs if r["phase"] == "begin")
inst = sum(1 for r in recs if r["phase"] == "instant")
nx = sum(1 for e in ev if e["ph"] == "X"); ni = sum(1 for e in ev if e["ph"] == "i")
if nx != begins: bad.append(f"{nx} X events for {begins} begins")
if ni != inst: bad.append(f"{ni} i events for {inst} instants")
for b in bad[:10]: print(b)
print(f"{len(ev)} events, {len(threads)} threads")
sys.exit(1 if bad else 0)
PY
/usr/bin/python3 "$OUT/rules.py" "$OUT/all.json" "$t" >"$OUT/rules.out" 2>&1 && ok "Chrome trace rules hold: $(tail -1 "$OUT/rules.out")" ||
	{ cat "$OUT/rules.out"; fail "Chrome trace rules broken"; }
jq -e '[.traceEvents[] | select(.ph=="M" and .name=="thread_name" and (.args.name | test("worker")))] | length == 1' "$OUT/all.json" >/dev/null &&
	ok "the worker thread is named" || fail "worker thread not named"
jq -e '[.traceEvents[] | select(.ph=="M" and .name=="process_name")][0].args.name == "Sample"' "$OUT/all.json" >/dev/null &&
	ok "process_name is the program" || fail "process_name"

# a span that never ends (process killed) is closed at the end, marked unfinished
grep -v '"event":"runtime.shutdown"' "$t" | head -n 60 >"$OUT/cut.jsonl"
printf '%s\n' "$(grep '"phase":"begin"' "$t" | tail -1)" >>"$OUT/cut.jsonl"
"$CLRTRACE" export --format chrome -o "$OUT/cut.json" "$OUT/cut.jsonl" || fail "export -o"
jq -e '[.traceEvents[] | select(.args.unfinished)] | length >= 1' "$OUT/cut.json" >/dev/null && ok "open spans exported as unfinished" ||
	fail "open spans lost"
"$CLRTRACE" export --format perfetto "$t" >/dev/null 2>&1
expect "unknown format: usage error" "$?" 2
"$CLRTRACE" export "$t" >/dev/null 2>&1
expect "no --format: usage error" "$?" 2
finish
