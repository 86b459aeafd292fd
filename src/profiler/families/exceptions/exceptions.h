/* SPDX-License-Identifier: MIT */
/* What the exception family offers the rest of the profiler (glue.c). */
#pragma once

#include <jansson.h>

struct ct_thread;

/* Counts by outcome, excluded and suppressed per type, for runtime.shutdown. */
json_t *ct_exceptions_totals(void);
/* A new trace after a detach: every count starts anew. */
void ct_exceptions_reset(void);
/* The process exits on the calling thread (Shutdown, exit()): end the
 * stories still open on it. */
void ct_exceptions_exit(struct ct_thread *t);
/* The calling thread is going away: end the stories still open on it. */
void ct_exceptions_thread_end(struct ct_thread *t);
