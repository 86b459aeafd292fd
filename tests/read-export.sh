#!/bin/sh
# clrtrace export --format chrome: the output follows the Chrome trace
# event format's rules (JSON object with traceEvents; ph/ts/pid/tid; X
# with dur; i with scope; s/f flows paired by id, f binding to its
# enclosing slice; thread_name metadata for every thread; X events nest per
# thread) and keeps every record; event names are the records' events (a
# closed set), the details in args; flows link each rethrow to its original
# throw and each nested exception to its outer one; otherData.start_time is
# the first record's time.  No trace viewer loads a file offline here
# (Perfetto's importer is fetched from the network, Chromium's chrome://tracing
# needs a user), so the format's documented rules are checked instead.
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
    if e["ph"] not in ("X", "i", "M", "s", "t", "f"): bad.append(f"unexpected ph {e['ph']}")
    if e["ph"] == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0): bad.append(f"X without dur: {e}")
    if e["ph"] == "i" and e.get("s") not in ("t", "p", "g"): bad.append(f"i without scope: {e}")
    if e["ph"] != "M": threads.add((e["pid"], e["tid"]))
    if e["ph"] == "M" and e["name"] == "thread_name":
        if not isinstance(e.get("args", {}).get("name"), str): bad.append("thread_name without args.name")
        named.add((e["pid"], e["tid"]))
    if e["ts"] < 0: bad.append(f"negative ts: {e}")
if threads - named: bad.append(f"threads without thread_name: {threads - named}")
# names: the records' events, the two flow names and the metadata names only
events = {r["event"] for r in recs}
names = {e["name"] for e in ev if e["ph"] != "M"}
if names - events - {"exception.rethrow", "exception.nested"}: bad.append(f"names beyond the events: {sorted(names - events)[:5]}")
if any(e["ph"] in ("X", "i") and e["name"] not in events for e in ev): bad.append("a slice named by something else")
if {e["name"] for e in ev if e["ph"] == "M"} - {"thread_name", "process_name"}: bad.append("unknown metadata")
# flows: one s and one f per id, same name and cat, s not after f, f binds to its enclosing slice
flows = defaultdict(dict)
for e in ev:
    if e["ph"] in ("s", "f") and e["name"] != "exception.error":
        if not isinstance(e.get("id"), (str, int)): bad.append(f"flow without id: {e}")
        if e["ph"] in flows[e["id"]]: bad.append(f"flow {e['id']}: two {e['ph']}")
        flows[e["id"]][e["ph"]] = e
for i, fl in flows.items():
    if set(fl) != {"s", "f"}: bad.append(f"flow {i}: {sorted(fl)}"); continue
    s, f = fl["s"], fl["f"]
    if (s["name"], s["cat"], s["pid"]) != (f["name"], f["cat"], f["pid"]): bad.append(f"flow {i}: ends differ")
    if s["ts"] > f["ts"]: bad.append(f"flow {i}: ends before it starts")
    if f.get("bp") != "e": bad.append(f"flow {i}: f without bp e")
# each flow joins two throws of one process: rethrow_of, or nested_in when that is another exception
throw = {(r["pid"], r["exception"]["id"]): r for r in recs if r["event"] == "exception.throw"}
want = {}
for (pid, xid), r in throw.items():
    if r.get("rethrow_of") is not None and (pid, r["rethrow_of"]) in throw: want[("exception.rethrow", pid, xid)] = (pid, r["rethrow_of"])
    o = (r.get("nested_in") or {}).get("id")
    if o is not None and o != r.get("rethrow_of") and (pid, o) in throw: want[("exception.nested", pid, xid)] = (pid, o)
us = lambda r: (r["ts"] - recs[0]["ts"]) / 1000.0
got = {}
for fl in flows.values():
    if set(fl) != {"s", "f"}: continue
    s, f = fl["s"], fl["f"]
    to = [k for k, r in throw.items() if k[0] == f["pid"] and r["tid"] == f["tid"] and abs(us(r) - f["ts"]) < 1e-3]
    fr = [k for k, r in throw.items() if k[0] == s["pid"] and r["tid"] == s["tid"] and abs(us(r) - s["ts"]) < 1e-3]
    if len(to) != 1 or len(fr) != 1: bad.append(f"flow {s['id']} does not join two throws"); continue
    got[(f["name"], to[0][0], to[0][1])] = fr[0]
if got != want: bad.append(f"flows {sorted(got.items())[:4]} != wanted {sorted(want.items())[:4]}")
nflow = {n: sum(1 for k in got if k[0] == n) for n in ("exception.rethrow", "exception.nested")}
# absolute start: the first record's time, exact
od = d.get("otherData", {})
import datetime
st = od.get("start_time", "")
try:
    sec = datetime.datetime.strptime(st[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()
    if int(sec) * 10**9 + int(st[20:29]) != recs[0]["ts"] or not st.endswith("Z"): bad.append(f"start_time {st} is not {recs[0]['ts']}")
except ValueError:
    bad.append(f"start_time {st!r} unreadable")
if od.get("start_ts_ns") != recs[0]["ts"]: bad.append("start_ts_ns is not the first record's ts")
# details: every slice whose record view describes carries args.detail
if not any("detail" in e.get("args", {}) for e in ev if e["name"] == "exception.throw"): bad.append("throws without args.detail")
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
begins = sum(1 for r in recs if r.get("phase") == "begin")
inst = sum(1 for r in recs if r.get("phase", "instant") == "instant")
nx = sum(1 for e in ev if e["ph"] == "X"); ni = sum(1 for e in ev if e["ph"] == "i")
if nx != begins: bad.append(f"{nx} X events for {begins} begins")
if ni != inst: bad.append(f"{ni} i events for {inst} instants")
for b in bad[:10]: print(b)
print(f"{len(ev)} events, {len(names)} names, {len(threads)} threads, {nflow['exception.rethrow']} rethrow and {nflow['exception.nested']} nested flows")
sys.exit(1 if bad else 0)
PY
/usr/bin/python3 "$OUT/rules.py" "$OUT/all.json" "$t" >"$OUT/rules.out" 2>&1 && ok "Chrome trace rules hold: $(tail -1 "$OUT/rules.out")" ||
	{ cat "$OUT/rules.out"; fail "Chrome trace rules broken"; }
grep -q ' [1-9][0-9]* rethrow and' "$OUT/rules.out" && ok "Sample's rethrows have their flows" || fail "no rethrow flow for Sample"
# errors (exception.error, issue 28): each error's hops are one flow, "s" at
# its first throw, "t" at each throw again, "f" at its exception.error
"$CLRTRACE" export --format chrome "$top_srcdir/tests/golden/errors.jsonl" >"$OUT/errors.json" || fail "export errors.jsonl: $?"
/usr/bin/python3 "$OUT/rules.py" "$OUT/errors.json" "$top_srcdir/tests/golden/errors.jsonl" >"$OUT/errors-rules.out" 2>&1 &&
	ok "errors.jsonl: Chrome trace rules hold" || { cat "$OUT/errors-rules.out"; fail "errors.jsonl: Chrome trace rules broken"; }
expect "errors: one flow per error, its hops in order" \
	"$(jq -r '[.traceEvents[] | select(.name == "exception.error" and (.ph == "s" or .ph == "t" or .ph == "f"))] | group_by(.id)[] | "\(.[0].id) \(map(.ph) | join(""))"' "$OUT/errors.json" | tr '\n' ';')" \
	"exception.error:4242:1 sf;exception.error:4242:13 stttf;exception.error:4242:17 sttf;exception.error:4242:2 sttttttttttf;"
# an exception thrown in a catch block: a nested flow to the one being handled
scen=$(build_program Scenarios)
trace "$OUT/in-catch.jsonl" -- dotnet "$scen" in-catch || fail "traced Scenarios in-catch exited $?"
"$CLRTRACE" export --format chrome "$OUT/in-catch.jsonl" >"$OUT/in-catch.json" || fail "export of in-catch: exit status $?"
/usr/bin/python3 "$OUT/rules.py" "$OUT/in-catch.json" "$OUT/in-catch.jsonl" >"$OUT/in-catch.out" 2>&1 &&
	ok "in-catch: Chrome trace rules hold: $(tail -1 "$OUT/in-catch.out")" || { cat "$OUT/in-catch.out"; fail "in-catch: rules broken"; }
grep -q ' [1-9][0-9]* nested flows' "$OUT/in-catch.out" && ok "in-catch: the nested exception has its flow" || fail "in-catch: no nested flow"
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
