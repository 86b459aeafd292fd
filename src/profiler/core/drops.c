/* SPDX-License-Identifier: MIT */
/*
 * The trace's own accounting: trace.dropped records from the sinks' loss
 * counts, and the end of the trace (totals for runtime.shutdown, close).
 * The sinks count; only the record core writes records.
 */
#include "profiler/core/emit.h"
#include "profiler/core/thread.h"
#include "profiler/sinks/sinks.h"

/* One trace.dropped record for one sink's unreported losses. */
static void emit_drop(const struct ct_drop *d, void *ud)
{
	struct ct_thread *t = ud;
	JW_FIELDS(f, 4);

	jwf_int(&f, "count", (int64_t)d->count);
	jwf_str(&f, "sink", ct_output_kind_to_string(d->kind));
	jwf_str(&f, "where", d->where);
	jwf_str(&f, "reason", d->reason);
	ct_emit(t, EV_TRACE_DROPPED, PH_INSTANT, 0, &f);
}

/* Emit trace.dropped for every sink that lost records and works again
 * (ALL: for every sink with unreported losses). */
void ct_report_drops(bool all)
{
	ct_sinks_each_drop(all, emit_drop, ct_thread_get());
}

/* Seal the trace for runtime.shutdown: the drops so far reported first,
 * so that its totals count every loss of the records before it. */
void ct_trace_totals(struct ct_totals *out)
{
	ct_flush_all(false); /* the losses of what is staged are known once it is out */
	ct_report_drops(true);
	ct_sinks_seal(out);
}

/* Close the trace: report the leftover drops, flush, close every sink
 * (EXITING: the process ends, see ct_sinks_stop_flusher). */
void ct_trace_close(bool exiting)
{
	ct_sinks_stop_flusher(exiting);
	ct_report_drops(true);
	ct_sinks_close();
}

void ct_trace_note_left_out(uint64_t errors)
{
	ct_sinks_note_left_out(errors);
}
