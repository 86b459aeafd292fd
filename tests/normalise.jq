# The content of a trace without what changes from run to run (for
# tests/stress-golden.sh): jq -s -c -f tests/normalise.jq TRACE.
# Dropped: seq, ts, dur_ns, pid, tid, thread, os_tid, an error's
# origin.tid (the threads' interleaving, times and ids); addresses (every "id" that is a 0x string, hr excepted)
# become "0x"; paths keep their file name; runtime versions their major,
# clrtrace's own none;
# span and parent ids are numbered in first-seen order per thread.  The
# records come out grouped by thread: the thread of runtime.init first,
# the others ordered by their content (their creation order is the
# scheduler's).
def masked:
  walk(if type == "object" and has("os_tid") then .os_tid = 0 else . end)
  | walk(if type == "object" and (.origin | type) == "object" and (.origin | has("tid")) then .origin.tid = 0 else . end)
  | walk(if type == "object" and (.id | type) == "string" and (.id | test("^0x")) then .id = "0x" else . end)
  | walk(if type == "object" and (.path | type) == "string" then .path |= sub(".*/"; "") else . end);
def spans:
  reduce .[] as $r ({map: {}, out: []};
    reduce ($r.span, $r.parent | select(. != null) | tostring) as $s (.;
      if .map[$s] == null then .map[$s] = (.map | length + 1) else . end)
    | .map as $m
    | .out += [$r | (if .span != null then .span = $m[.span | tostring] else . end)
                  | (if .parent != null then .parent = $m[.parent | tostring] else . end)])
  | .out;
def init_fields:
  if .event == "runtime.init" then
    .runtime.version = "\(.runtime.major)" | .runtime.build = "\(.runtime.major)" | .clrtrace = "VERSION"
    | .argv |= map(sub(".*/"; "")) | .config.output = ["file:"]
  else . end;
map(select(.seq != null))
| group_by(.tid)
| map(sort_by(.seq) | (any(.event == "runtime.init")) as $init
      | map(del(.seq, .ts, .dur_ns, .pid, .tid, .thread) | init_fields | masked) | spans
      | {init: $init, recs: .})
| sort_by((if .init then 0 else 1 end), (.recs | tojson))
| .[].recs[]
