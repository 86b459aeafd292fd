/* SPDX-License-Identifier: MIT */
/*
 * Building records: the common fields, each record's place in its thread's
 * span nesting (spans.c keeps the stack), the hand-off to the sinks (which
 * number it, stage it in the thread's own slot and write it in seq order),
 * the tracer's own errors.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/digits.h"
#include "common/util.h"
#include "profiler/core/emit.h"
#include "profiler/core/handoff.h"
#include "profiler/core/jsonw.h"
#include "profiler/core/spans.h"
#include "profiler/core/state.h"
#include "profiler/core/thread.h"
#include "profiler/core/thread-ident.h"
#include "profiler/sinks/sinks.h"

/* Where a record sits: its time, span, parent, depth, an end's duration,
 * and the thread that began it when that is another one. */
struct place {
	uint64_t ts, mono, span, parent, dur; /* ts: wall clock; mono and dur: monotonic */
	size_t depth;
	int begin_tid;
};

/* Make T's ,"pid":P,"tid":T,"thread":"0x…"|null and, once known,
 * ,"managed_tid":N,"thread_name":"…", kept until the pid or the managed id
 * changes or thread-ident.c clears ids_len. */
static void thread_ids(struct ct_thread *t)
{
	struct strbuf b = { 0 };

	ct_record_ids(&b, ct.pid, t->tid, (uint64_t)t->managed_id, t->managed_tid, t->name);
	free(t->ids);
	t->ids = b.oom ? NULL : b.s;
	t->ids_len = t->ids ? b.len : 0;
	if (!t->ids)
		strbuf_free(&b);
	t->ids_pid = ct.pid;
	t->ids_managed = t->managed_id;
}

/* Write the record into t->line: its head (common/record-head.c), with
 * room for {"v":1,"seq":N kept in front (ct_sinks_dispatch fills it in as
 * it numbers it), then an end's duration, the thread that began it, the
 * payload FIELDS[0..n_fields). */
static void record_write(struct ct_thread *t, enum ct_event ev, enum ct_phase ph, const struct place *pl,
			 const struct jw_field *fields, size_t n_fields)
{
	struct jw *w = &t->line;

	jw_reset(w);
	if (!t->ids_len || t->ids_pid != ct.pid || t->ids_managed != t->managed_id)
		thread_ids(t);
	ct_record_head(&w->b, &(struct ct_record_head){
				      .unnumbered = true,
				      .ts = pl->ts,
				      .ts_cache = &t->ts_cache,
				      .ids = t->ids,
				      .ids_len = t->ids_len,
				      .ev = ev,
				      .ph = ph,
				      .span = pl->span,
				      .parent = pl->parent,
				      .depth = pl->depth,
			      });
	if (ph == PH_END) {
		jw_key(w, "dur_ns");
		jw_u64(w, pl->dur);
	}
	if (pl->begin_tid) {
		jw_key(w, "begin_tid");
		jw_i64(w, pl->begin_tid);
	}
	if (n_fields)
		jw_fields(w, fields, n_fields);
	jw_raw(w, "}", 1);
}

/* Place a record of phase PH in T's nesting: a begin opens a span, an end
 * closes its span (and the unended ones above it).  A HANDOFF span (a load)
 * goes in the handoff table too: its end may come on another thread, where
 * it sits like an instant and names the thread that began it.  0, or -errno
 * after saying why in a trace.error record. */
static int place_record(struct ct_thread *t, enum ct_event ev, enum ct_phase ph, uint64_t key, bool handoff,
			struct place *pl)
{
	pl->parent = t->n_spans ? t->spans[t->n_spans - 1].id : 0;
	pl->depth = t->n_spans;
	if (ph == PH_BEGIN) {
		struct ct_span s = { .id = ct_span_next_id(t), .key = key, .mono = pl->mono, .event = ev };
		int r = ct_span_push(t, &s);

		if (r < 0) {
			ct_error(t, "span stack full (%zu open); %s not nested", t->n_spans, ct_events[ev].name);
			return r;
		}
		/* out of memory for the table: the span stays this thread's */
		if (handoff)
			(void)ct_handoff_add(t, &t->spans[t->n_spans - 1]);
		pl->span = s.id;
	} else if (ph == PH_END) {
		ssize_t i = ct_span_find(t, ev, key);
		struct ct_handoff_end other;

		if (i < 0 && handoff && ct_handoff_take(t, ev, key, &other)) {
			pl->span = other.span;
			pl->dur = pl->mono > other.mono ? pl->mono - other.mono : 0;
			pl->begin_tid = other.tid;
			return 0;
		}
		if (i < 0) {
			ct_error(t, "%s ended without a begin on this thread", ct_events[ev].name);
			return -ENOENT;
		}
		/* spans above it never ended: leave them open in the trace */
		pl->span = t->spans[i].id;
		pl->dur = pl->mono > t->spans[i].mono ? pl->mono - t->spans[i].mono : 0;
		ct_span_cut(t, (size_t)i);
		pl->depth = t->n_spans;
		pl->parent = pl->depth ? t->spans[pl->depth - 1].id : 0;
	}
	return 0;
}

/* Write one record with the payload F (a builder's fields, may be NULL;
 * those it left out for want of room are said); a HANDOFF span may end on
 * another thread than the one that began it. */
static int64_t emit(struct ct_thread *t, enum ct_event ev, enum ct_phase ph, uint64_t key, bool handoff,
		    const struct jw_fields *f)
{
	struct place pl = { .ts = ct_now(t), .mono = ct_mono(t) };
	bool locked = false, dropped = false;
	int r;

	/* a family's callbacks may feed events of another category (the
	 * exception passes, frame by frame): skip both ends of what is off */
	if (!t || !ct_wants(ev))
		return t ? 0 : -ENOMEM;
	/* what a family's callbacks only stashed (a filter or catch the
	 * runtime entered before this record began): its records first, so
	 * that this one nests in it (a load, a GC suspension inside a
	 * filter), in time order on the thread */
	if (t->has_family_state)
		ct_families_before_record(t);
	ct_thread_ident(t, pl.ts);
	/* a load, or a thread with spans another may end: the whole record
	 * under the handoff lock, so that an end written for one of its spans
	 * elsewhere is numbered before or after it, never in between */
	if ((handoff || t->n_shared) && !t->in_handoff) {
		ct_handoff_lock(t);
		locked = true;
	}
	if (t->n_shared)
		ct_handoff_settle(t);
	r = place_record(t, ev, ph, key, handoff, &pl);
	if (r < 0)
		goto out;
	record_write(t, ev, ph, &pl, f ? f->f : NULL, f ? f->n : 0);
	r = -ENOMEM;
	if (t->line.b.oom)
		goto out;
	dropped = ct_sinks_dispatch(&t->stage, t->line.b.s, t->line.b.len, t->tid, ev, (int)pl.depth);
	r = 0;
out:
	if (locked)
		ct_handoff_unlock(t);
	if (r < 0)
		return r;
	if (dropped && ev != EV_TRACE_DROPPED)
		ct_report_drops(false);
	if (f && f->lost && ev != EV_TRACE_ERROR)
		ct_error(t, "%s: %" PRIu32 " field%s past the record's capacity of %" PRIu32 ", left out",
			 ct_events[ev].name, f->lost, f->lost == 1 ? "" : "s", f->cap);
	if (f && f->oom && ev != EV_TRACE_ERROR)
		ct_error(t, "%s: %" PRIu32 " field%s or item%s left out: out of memory", ct_events[ev].name, f->oom,
			 f->oom == 1 ? "" : "s", f->oom == 1 ? "" : "s");
	return (int64_t)pl.span;
}

/* Emit one record (see emit.h). */
int64_t ct_emit(struct ct_thread *t, enum ct_event ev, enum ct_phase ph, uint64_t key, const struct jw_fields *f)
{
	return emit(t, ev, ph, key, false, f);
}

/* Emit one record of a span another thread may end (see emit.h). */
int64_t ct_emit_handoff(struct ct_thread *t, enum ct_event ev, enum ct_phase ph, uint64_t key,
			const struct jw_fields *f)
{
	return emit(t, ev, ph, key, true, f);
}

/* Report a problem of the tracer's own as a trace.error record. */
void ct_error(struct ct_thread *t, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	JW_FIELDS(f, 1);

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	jwf_str(&f, "message", msg);
	ct_emit(t, EV_TRACE_ERROR, PH_INSTANT, 0, &f);
	free(msg);
}
