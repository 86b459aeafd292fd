/* SPDX-License-Identifier: MIT */
/* The exception family's row in the family table: its state per thread,
 * the stash replayed before a record, the exit path, the totals. */
#include <stdlib.h>

#include "profiler/core/family.h"
#include "profiler/families/exceptions/deferred.h"
#include "profiler/families/exceptions/exceptions.h"
#include "profiler/families/exceptions/machine.h"

unsigned ct_exc_slot;

static void exc_init(unsigned slot)
{
	ct_exc_slot = slot;
}

/* Make T's state (see exceptions.h). */
struct exc_thread *exc_thread_make(struct ct_thread *t)
{
	struct exc_thread *x = exc_thread(t);

	if (x)
		return x;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->exm = exm_new();
	if (!x->exm) {
		free(x);
		return NULL;
	}
	ct_family_state_set(t, ct_exc_slot, x); /* the exit path ends its stories */
	return x;
}

/* T's thread exits, or its trace ended: the pins of live exceptions are
 * not released (the runtime's handles of an ended trace are not ours any
 * more; at a thread's exit its exceptions are gone). */
static void exc_thread_free(struct ct_thread *t, void *state)
{
	struct exc_thread *x = state;

	exm_free(x->exm);
	free(x);
}

static void exc_before_record(struct ct_thread *t, void *state)
{
	struct exc_thread *x = state;

	if (atomic_load_explicit(&x->n_deferred, memory_order_acquire))
		ct_deferred_replay(t);
}

const struct ct_family ct_family_exceptions = {
	.name = "exceptions",
	.init = exc_init,
	.thread_free = exc_thread_free,
	.before_record = exc_before_record,
	.thread_end = ct_exceptions_thread_end,
	.exit = ct_exceptions_exit,
	.totals = ct_exceptions_totals,
	.reset = ct_exceptions_reset,
};
