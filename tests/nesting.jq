# Replays a trace per thread and checks span/parent/depth as DESIGN.md
# defines them; prints "ok" or the first problem.
def problem($r; $what): "seq \($r.seq) (\($r.event) \($r.phase)): \($what)";
sort_by(.seq)
| reduce .[] as $r ({stacks: {}, err: null};
    if .err != null then . else
      (.stacks[$r.tid | tostring] // []) as $st
      | ($st | length) as $d
      | (if $d > 0 then $st[-1].span else null end) as $top
      | if $r.phase == "begin" then
          if $r.depth != $d then .err = problem($r; "depth \($r.depth), expected \($d)")
          elif $r.parent != $top then .err = problem($r; "parent \($r.parent), expected \($top)")
          else .stacks[$r.tid | tostring] = $st + [{span: $r.span, event: $r.event}] end
        elif $r.phase == "end" then
          ([$st | to_entries[] | select(.value.span == $r.span) | .key] | last) as $i
          | if $i == null then .err = problem($r; "end of span \($r.span) that is not open")
            elif $st[$i].event != $r.event then .err = problem($r; "ends span \($r.span) opened as \($st[$i].event)")
            elif $r.depth != $i then .err = problem($r; "depth \($r.depth), expected \($i)")
            else .stacks[$r.tid | tostring] = $st[0:$i] end
        else
          if $r.depth != $d then .err = problem($r; "depth \($r.depth), expected \($d)")
          elif $r.parent != $top then .err = problem($r; "parent \($r.parent), expected \($top)")
          else . end
        end
    end)
| .err // "ok"
