#!/usr/bin/python3
"""What a (large) trace holds, in one pass, for tests/stress-*.sh: prints
one JSON object of facts the test compares with what the program said.
jq 1.6 reads ts as a double (ns since 1970 need 61 bits) and takes
minutes over a million records; this reads every integer exactly.

Usage: stress-facts.py TRACE

  lines, bad_lines (first line numbers that are not a JSON object), torn
  (the last line has no newline); seq: count, min, max, dups, missing
  (numbers in min..max absent), backwards (records whose seq is not above
  the one before in the file); events {event: count}; dropped (sum of
  trace.dropped counts); died_dropped (those a merge wrote for records
  numbered but never copied when the process died); last_event; per_tid {tid: {records, ts_back
  (records with a ts below the thread's one before), throws, summaries,
  outcomes {outcome: n}}}; storm {K: {tids, throws, summaries, thrown
  (1 + highest I thrown), gaps (I below it thrown with no record),
  unsummarised (Is thrown without a summary)}} for exceptions whose
  message is "K:I" (tests/programs/Storm); others: [event, outcome, tid,
  message] of the first 20 other exception.throw, summary and unhandled.
"""
import json
import sys

# the reason a merge gives for records a dying process numbered, never copied
DIED = "the process died between numbering and writing them"


def main(path):
    f = {"lines": 0, "bad_lines": [], "torn": False, "events": {}, "dropped": 0, "died_dropped": 0, "last_event": None,
         "errors": []}
    seqs = []
    backwards = 0
    prev_seq = None
    tids = {}
    storm = {}
    others = []
    # a summary names its exception by id only, or by its error: its
    # message is its throw's (clrtrace-records(5))
    thrown_msgs = {}
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            f["lines"] = n
            if not raw.endswith(b"\n"):
                f["torn"] = True
            try:
                r = json.loads(raw)
                if not isinstance(r, dict):
                    raise ValueError("not an object")
            except ValueError:
                if len(f["bad_lines"]) < 5:
                    f["bad_lines"].append(n)
                continue
            ev = r.get("event")
            f["events"][ev] = f["events"].get(ev, 0) + 1
            f["last_event"] = ev
            seq = r.get("seq")
            if isinstance(seq, int):
                seqs.append(seq)
                if prev_seq is not None and seq <= prev_seq:
                    backwards += 1
                prev_seq = seq
            if ev == "trace.dropped":
                f["dropped"] += r.get("count", 0)
                if r.get("reason") == DIED and r.get("sink") == "file":
                    f["died_dropped"] += r.get("count", 0)
            if ev == "trace.error":
                f["errors"].append(str(r.get("message")))
            t = tids.setdefault(str(r.get("tid")), {"records": 0, "ts_back": 0, "last_ts": 0, "throws": 0,
                                                     "summaries": 0, "outcomes": {}})
            t["records"] += 1
            ts = r.get("ts")
            if isinstance(ts, int):
                if ts < t["last_ts"]:
                    t["ts_back"] += 1
                t["last_ts"] = ts
            if ev not in ("exception.throw", "exception.summary", "exception.unhandled"):
                continue
            exc = r.get("exception") or {}
            xid = (r.get("pid"), exc.get("id", r.get("error")))
            if ev == "exception.throw":
                msg = exc.get("message") or ""
                thrown_msgs[xid] = msg
            elif ev == "exception.summary":
                msg = exc.get("message") or thrown_msgs.pop(xid, "")
            else:
                msg = exc.get("message") or ""
            k, sep, i = msg.partition(":")
            if not (sep and k.isdigit() and i.isdigit()) or ev == "exception.unhandled":
                if len(others) < 20:
                    others.append([ev, r.get("outcome"), r.get("tid"), msg])
            if ev == "exception.unhandled":
                continue
            if ev == "exception.throw":
                t["throws"] += 1
            else:
                t["summaries"] += 1
                o = r.get("outcome")
                t["outcomes"][o] = t["outcomes"].get(o, 0) + 1
            if not (sep and k.isdigit() and i.isdigit()):
                continue
            s = storm.setdefault(k, {"tids": set(), "thrown": set(), "summarised": set(), "throws": 0,
                                     "summaries": 0})
            s["tids"].add(r.get("tid"))
            if ev == "exception.throw":
                s["throws"] += 1
                s["thrown"].add(int(i))
            else:
                s["summaries"] += 1
                s["summarised"].add(int(i))
    seqs.sort()
    uniq = len(set(seqs))
    f["seq"] = {"count": len(seqs), "min": seqs[0] if seqs else None, "max": seqs[-1] if seqs else None,
                "dups": len(seqs) - uniq, "missing": (seqs[-1] - seqs[0] + 1 - uniq) if seqs else 0,
                "backwards": backwards}
    for t in tids.values():
        del t["last_ts"]
    f["per_tid"] = tids
    out = {}
    for k, s in storm.items():
        top = max(s["thrown"]) + 1 if s["thrown"] else 0
        out[k] = {"tids": sorted(s["tids"]), "throws": s["throws"], "summaries": s["summaries"], "thrown": top,
                  "gaps": top - len(s["thrown"]), "unsummarised": sorted(s["thrown"] - s["summarised"])[:10],
                  "summary_without_throw": len(s["summarised"] - s["thrown"])}
    f["storm"] = out
    f["others"] = others
    json.dump(f, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: stress-facts.py TRACE")
    main(sys.argv[1])
