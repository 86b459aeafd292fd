/* SPDX-License-Identifier: MIT */
/* Garbage collections as spans (category gc, off by default). */
#include <stdatomic.h>
#include <stdio.h>

#include "profiler/families/handlers.h"

/* The thread that reported the GC's start.  Under server GC (.NET 8) the
 * runtime reports the start on a GC worker thread and the end on the thread
 * that suspended the runtime; the span is the worker's, which makes no other
 * callback before the next GC, and that cannot start before this one ends. */
static _Atomic(struct ct_thread *) gc_owner;

HRESULT on_GarbageCollectionStarted(struct ct_thread *t, int ngen, BOOL *collected, uint32_t reason)
{
	char gens[2 + 16 * 3]; /* [0,1,…,15] */
	size_t n = 0;
	JW_FIELDS(f, 2);

	if (!ct_wants(EV_GC))
		return S_OK;
	gens[n++] = '[';
	for (int i = 0; collected && i < ngen && i < 16; i++)
		if (collected[i])
			n += (size_t)snprintf(gens + n, sizeof(gens) - n, "%s%d", n > 1 ? "," : "", i);
	gens[n++] = ']';
	jwf_raw(&f, "generations", gens, n);
	jwf_str(&f, "reason", reason == 1 ? "induced" : "other");
	if (ct_emit(t, EV_GC, PH_BEGIN, 0, &f) > 0)
		atomic_store(&gc_owner, t);
	return S_OK;
}

HRESULT on_GarbageCollectionFinished(struct ct_thread *t)
{
	struct ct_thread *owner = atomic_exchange(&gc_owner, NULL);

	if (ct_wants(EV_GC))
		ct_emit(owner ? owner : t, EV_GC, PH_END, 0, NULL);
	return S_OK;
}

/* A new trace after a detach: a GC the detach cut has no owner in it. */
static void gc_reset(void)
{
	atomic_store(&gc_owner, NULL);
}

const struct ct_family ct_family_gc = { .name = "gc", .reset = gc_reset };
