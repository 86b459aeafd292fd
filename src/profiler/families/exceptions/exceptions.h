/* SPDX-License-Identifier: MIT */
/* The exception family: its row in the family table (family.c), the state
 * it keeps per thread, and what glue.c offers the row. */
#pragma once

#include <stdatomic.h>
#include <stdint.h>

#include "profiler/core/thread.h"

struct exm; /* machine.h */

/* A handler Enter stashed while the runtime held the exception object
 * unprotected (dotnet/runtime#132462), fed to the machine at the thread's
 * next exception callback or before its next record (deferred.c, the
 * family's before_record hook). */
struct ct_deferred {
	int kind;             /* enum exm_input_kind */
	uint64_t fn, object, frame, pc, ts, mono;
};
#define CT_DEFERRED_MAX 4
#define CT_PINS_MAX 64 /* the machine follows at most 64 live exceptions a thread */

/* The family's state of one thread, made at its first throw (exc_thread_make)
 * and freed by the core through the family's row. */
struct exc_thread {
	struct exm *exm;      /* the exception state machine */
	struct ct_deferred deferred[CT_DEFERRED_MAX];
	atomic_uint n_deferred; /* atomic: the exit path may replay it (deferred.c) */
	atomic_uint deferred_lost; /* stashes that did not fit, said at the replay */
	uintptr_t pins[CT_PINS_MAX]; /* pinned handles of the live exceptions, oldest first */
	unsigned n_pins;
};

extern unsigned ct_exc_slot; /* the family's slot in struct ct_thread */

/* T's state, or NULL before its first throw. */
static inline struct exc_thread *exc_thread(const struct ct_thread *t)
{
	return ct_family_state(t, ct_exc_slot);
}

/* T's machine, or NULL. */
static inline struct exm *exc_machine(const struct ct_thread *t)
{
	struct exc_thread *x = exc_thread(t);

	return x ? x->exm : NULL;
}

/* T's state, made now if it has none (T's own thread, holding its lock);
 * NULL when out of memory. */
struct exc_thread *exc_thread_make(struct ct_thread *t);
struct jw;

/* Counts by outcome, excluded and suppressed per type, for runtime.shutdown,
 * as an object written into W. */
void ct_exceptions_totals(struct jw *w);
/* A new trace after a detach: every count starts anew. */
void ct_exceptions_reset(void);
/* The process exits on the calling thread (Shutdown, exit()): end the
 * stories still open on it. */
void ct_exceptions_exit(struct ct_thread *t);
/* The calling thread is going away: end the stories still open on it. */
void ct_exceptions_thread_end(struct ct_thread *t);
