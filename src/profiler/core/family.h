/* SPDX-License-Identifier: MIT */
/*
 * The event families as the core sees them (family.c): a table the
 * profiler registers at start (profiler/families.def), so that the core
 * calls a family through its row and never names one.  A family that keeps
 * state per thread gets a slot in struct ct_thread, an opaque pointer it
 * fills on demand (ct_family_state_set) and that the core hands back to
 * its hooks to free or forget.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct ct_thread;
struct jw;
struct jw_fields;

#define CT_FAMILY_MAX 8 /* rows of families.def; families.c checks it */

struct ct_family {
	const char *name;
	/* once, at start, before any callback: SLOT is its slot in every
	 * struct ct_thread (ct_family_state) */
	void (*init)(unsigned slot);
	/* forget STATE, this family's state of T's thread: the thread exits,
	 * or the trace STATE belongs to has ended (no runtime call: the
	 * runtime's handles of an ended trace are not ours any more) */
	void (*thread_free)(struct ct_thread *t, void *state);
	/* before each record of T (STATE non-NULL): the work a callback only
	 * stashed, so that the record nests in it */
	void (*before_record)(struct ct_thread *t, void *state);
	/* T's managed thread ends (ThreadDestroyed, on that thread) */
	void (*thread_end)(struct ct_thread *t);
	/* the trace ends (Shutdown, exit(), a detach) on T, holding its
	 * lock: end what is open */
	void (*exit)(struct ct_thread *t);
	/* its part of runtime.shutdown's totals, under its name: one JSON
	 * object written into W (nothing written: {}) */
	void (*totals)(struct jw *w);
	/* a new trace after a detach: what it kept for the trace starts anew */
	void (*reset)(void);
};

/* Register the N families of TABLE (at start; again at a re-attach, the
 * same table). */
void ct_families_register(const struct ct_family *const *table, size_t n);

/* The trace generation: bumped when a trace ends (a detach), so that
 * per-thread state of the old trace is dropped when its thread is next
 * seen (ct_thread_get), or at the detach if its lock is free. */
extern atomic_uint ct_trace_gen;
static inline unsigned ct_trace_generation(void)
{
	return atomic_load_explicit(&ct_trace_gen, memory_order_acquire);
}
/* The trace ended: drop what every family kept for it (reset), and make
 * every thread's state of it stale. */
void ct_families_trace_end(void);

/* Hooks over every registered family, in table order. */
void ct_families_before_record(struct ct_thread *t);
void ct_families_thread_end(struct ct_thread *t);
void ct_families_exit(struct ct_thread *t);
/* Add each family's totals to F under its name; BUFS (CT_FAMILY_MAX of
 * them, zeroed, freed by the caller) hold the text until F is written. */
void ct_families_totals(struct jw_fields *f, struct jw *bufs);
/* Free every family's state of T (its thread exits or its trace ended). */
void ct_families_thread_free(struct ct_thread *t);
/* Is there a family with an exit hook? */
bool ct_families_have_exit(void);
