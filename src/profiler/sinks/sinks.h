/* SPDX-License-Identifier: MIT */
/*
 * The sink set, as the record core sees it: opened from a spec (the sinks
 * read no process-wide state), records staged per thread and handed over
 * in seq order by the writer, flushes,
 * the seal for runtime.shutdown, close; and the loss counts, which the core
 * turns into trace.dropped records.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "common/record-head.h"
#include "common/vocabulary.h"

/* Bytes kept in front of each record for {"v":1,"seq":N: CT_SEQ_ROOM
 * (common/record-head.h). */

/* Everything the sinks know of the process and its configuration. */
struct ct_sink_spec {
	const struct ct_output *outputs; /* read while opening only */
	size_t n_outputs;
	const char *program;     /* %n; the journal's identifier without IDENT */
	const char *ident;       /* SYSLOG_IDENTIFIER, or NULL */
	int pid;                 /* %p */
	uint64_t start_ns;       /* %t */
	unsigned flush_ms;       /* the flusher's period; 0: no flusher */
	unsigned journal_burst, journal_interval_s; /* client-side rate limit */
	const char *status;      /* CLRTRACE_STATUS: `clrtrace run`'s socket, or NULL */
	/* One line on stderr, once per KEY: how the sinks say things. */
	void (*say)(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

/* Open every output of SPEC; those that fail are said and left out.  The
 * number open, or -errno when none could be.  *FELL_BACK: none of the
 * files opened and the default file (CT_DEFAULT_OUTPUT) took their place. */
int ct_sinks_open(const struct ct_sink_spec *spec, bool *fell_back);
/* Send MSG to `clrtrace run`'s status socket SOCK (CLRTRACE_STATUS, "@name"); never waits. */
void ct_status_send(const char *sock, const char *msg, size_t len);
/* The errors left out on purpose so far (trace.left_out's counts), for
 * `clrtrace run`'s summary: a journal trace has no file it could count. */
void ct_sinks_note_left_out(uint64_t errors);

/* A thread's slot in the staging area (stage.c), kept in its TLS struct. */
struct ct_stage_ref {
	void *slot;
	uint64_t gen;
};

/* Give the record LINE[CT_SEQ_ROOM..len) its seq (written into the room in
 * front) and stage it in REF's slot; the writer hands it to every sink, in
 * seq order.  No lock shared between threads is taken.  True when it was
 * staged and some sink has losses to report (the core emits
 * trace.dropped). */
bool ct_sinks_dispatch(struct ct_stage_ref *ref, char *line, size_t len, int tid, enum ct_event ev, int depth);
/* The thread of REF ends: its slot may serve another one. */
void ct_sinks_thread_exit(struct ct_stage_ref *ref);

/* Records one sink lost and not yet reported. */
struct ct_drop {
	uint64_t count;
	enum ct_output_kind kind;
	const char *where;
	const char *reason; /* why the last ones were lost */
};
/* Take the unreported losses of the sinks that work again (ALL: of every
 * sink) and call FN for each, the set held open meanwhile.  Nothing once
 * the trace is sealed. */
void ct_sinks_each_drop(bool all, void (*fn)(const struct ct_drop *d, void *ud), void *ud);

/* Write everything buffered to every sink now; DYING: the process is about
 * to end abnormally, so do not wait on anything that may never come. */
void ct_flush_all(bool dying);

struct ct_totals {
	uint64_t records;
	uint64_t dropped;
};
/* Flush and seal the trace for runtime.shutdown, the only record numbered
 * after this; OUT: the records numbered so far and every loss. */
void ct_sinks_seal(struct ct_totals *out);

/* Stop the periodic flusher (first step of closing); EXITING: the process
 * is ending (runtime.shutdown), do not wait for the thread. */
void ct_sinks_stop_flusher(bool exiting);
/* Flush, close every sink, say what was lost. */
void ct_sinks_close(void);
