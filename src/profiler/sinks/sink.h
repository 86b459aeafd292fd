/* SPDX-License-Identifier: MIT */
/* Sinks: where finished records go.  What one kind of sink implements and
 * the accounting it reports its losses to; one table of kinds (sinks.c). */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "common/vocabulary.h"
#include "profiler/sinks/sinks.h"

/* One finished record, as every sink sees it. */
struct ct_rec {
	const char *line; /* the record as one JSON line, without newline */
	size_t len;
	uint64_t seq;
	enum ct_event event;
	int depth;
	int tid;
};

struct ct_sink;

struct ct_sink_ops {
	enum ct_output_kind kind;
	/* Open O; SPEC tells who the process is (valid during the call only).
	 * 0 or -errno, *why set to a sentence for stderr on failure. */
	int (*open)(struct ct_sink *s, const struct ct_output *o, const struct ct_sink_spec *spec, char **why);
	/* Take one record.  Called by the writer (one thread at a time, never
	 * a program thread's record path), in seq order; a thread that stages
	 * waits for it only when its own buffers are both full. */
	void (*write)(struct ct_sink *s, const struct ct_rec *r);
	/* Push what is buffered out (the writer, after each round: the staged
	 * records are let go once this returns).  DYING: the process is about
	 * to die. */
	void (*flush)(struct ct_sink *s, bool dying);
	void (*close)(struct ct_sink *s);
};

struct ct_sink {
	const struct ct_sink_ops *ops;
	void *data;
	char *where;  /* path or "journal", for messages */
	/* Drop accounting: records lost, and those not yet reported in a
	 * trace.dropped record (reported once the sink works again). */
	atomic_uint_fast64_t dropped;
	atomic_uint_fast64_t unreported;
	atomic_bool report_ready; /* set by the sink when it works again */
	atomic_bool announce;     /* a new loss to say on stderr (by the writer) */
	pthread_mutex_t reason_lock; /* the two below (losses come from several threads) */
	char reason[128];         /* why the last records were lost */
	char reasons[256];        /* every reason so far, "; " between, for the exit */
};

extern const struct ct_sink_ops ct_sink_file_ops;
extern const struct ct_sink_ops ct_sink_journal_ops;
extern const struct ct_sink_ops ct_sink_stderr_ops;

/* A file sink's path and descriptor (the staging area mirrors its records
 * beside it); false for other kinds, and for a device or a FIFO. */
bool ct_file_sink_target(const struct ct_sink *s, const char **path, int *fd);
/* The rotated files a file sink's keep limit removed so far (retention). */
uint64_t ct_file_sink_removed(const struct ct_sink *s);

/* For sinks: count N records lost for REASON (short text: "disk full").
 * The first loss for each reason is said on stderr soon after, by the
 * writer; every loss is in the exit line and `clrtrace run`'s summary. */
void ct_sink_lost(struct ct_sink *s, uint64_t n, const char *reason);
/* For sinks: writes work again; report what was lost at the next chance. */
void ct_sink_recovered(struct ct_sink *s);
/* For sinks: N more records already counted lost for a trace.dropped to
 * report (a trace.dropped that did not reach the sink), or, N < 0, fewer
 * (the sink's own trace.dropped told them). */
void ct_sink_unreport(struct ct_sink *s, int64_t n);
/* A short reason for a write error -E: "disk full" for ENOSPC, else strerror. */
const char *ct_sink_errno_reason(int e);
