-- bench/web/summary.lua: wrk's figures on one line for bench/web.sh to
-- read (wrk -s bench/web/summary.lua): requests, duration and latency
-- percentiles in microseconds, socket errors and non-2xx/3xx answers.
done = function(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "WRK requests=%d duration_us=%d p50=%d p75=%d p90=%d p99=%d p999=%d max=%d mean=%.0f" ..
      " connect=%d read=%d write=%d timeout=%d non2xx=%d\n",
      summary.requests, summary.duration,
      latency:percentile(50), latency:percentile(75), latency:percentile(90),
      latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean,
      e.connect, e.read, e.write, e.timeout, e.status))
end
