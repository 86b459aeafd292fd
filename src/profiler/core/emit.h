/* SPDX-License-Identifier: MIT */
/* Writing records: one record on the calling thread with its span nesting
 * (emit.c), the tracer's own errors, and the
 * trace's accounting (drops.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/vocabulary.h"
#include "profiler/core/jsonw.h"
#include "profiler/abi/corprof.h"
#include "profiler/sinks/sinks.h"

struct ct_thread;

/*
 * Emit one record on the calling thread, with the payload F (the builder's
 * fields, borrowed and written at once; NULL: none).  PH_BEGIN pushes a
 * span keyed by (event, key); PH_END pops the matching span (spans above it
 * that never ended are dropped from the stack, not invented); an END with
 * no matching BEGIN is reported as trace.error.  Fields F's builder left
 * out for want of room are said in a trace.error record.
 * Returns the span id (begin/end), 0 for instants, or -errno.
 */
int64_t ct_emit(struct ct_thread *t, enum ct_event ev, enum ct_phase ph, uint64_t key, const struct jw_fields *f);

/* The same for a span whose end the runtime may deliver on another thread
 * than its begin (a load finished by a thread that waited for it): that
 * end closes the span on the thread that began it, sits in its own
 * thread's nesting like an instant, and says begin_tid (handoff.c). */
int64_t ct_emit_handoff(struct ct_thread *t, enum ct_event ev, enum ct_phase ph, uint64_t key,
			const struct jw_fields *f);

/* Report a problem of the tracer's own as a trace.error record. */
void ct_error(struct ct_thread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));


/* The trace's accounting (drops.c): trace.dropped for the sinks that lost
 * records (ALL: every one with losses not yet reported); the seal and
 * totals for runtime.shutdown; the end. */
void ct_report_drops(bool all);
void ct_trace_totals(struct ct_totals *out);
void ct_trace_close(bool exiting);
/* The errors a family left out so far (not loss: its trace.left_out
 * records count them), for the exit report `clrtrace run` reads. */
void ct_trace_note_left_out(uint64_t errors);
