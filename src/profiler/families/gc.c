/* SPDX-License-Identifier: MIT */
/* Garbage collections as spans (category gc, off by default). */
#include <stdatomic.h>

#include "profiler/families/handlers.h"

/* The thread that reported the GC's start.  Under server GC (.NET 8) the
 * runtime reports the start on a GC worker thread and the end on the thread
 * that suspended the runtime; the span is the worker's, which makes no other
 * callback before the next GC, and that cannot start before this one ends. */
static _Atomic(struct ct_thread *) gc_owner;

HRESULT on_GarbageCollectionStarted(struct ct_thread *t, int ngen, BOOL *collected, uint32_t reason)
{
	json_t *gens;

	if (!ct_wants(EV_GC))
		return S_OK;
	gens = json_array();
	for (int i = 0; collected && i < ngen && i < 16; i++)
		if (collected[i])
			json_array_append_new(gens, json_integer(i));
	if (ct_emit_json(t, EV_GC, PH_BEGIN, 0,
		    json_pack("{s:o,s:s}", "generations", gens, "reason", reason == 1 ? "induced" : "other")) > 0)
		atomic_store(&gc_owner, t);
	return S_OK;
}

HRESULT on_GarbageCollectionFinished(struct ct_thread *t)
{
	struct ct_thread *owner = atomic_exchange(&gc_owner, NULL);

	if (ct_wants(EV_GC))
		ct_emit_json(owner ? owner : t, EV_GC, PH_END, 0, NULL);
	return S_OK;
}

/* A new trace after a detach: a GC the detach cut has no owner in it. */
static void gc_reset(void)
{
	atomic_store(&gc_owner, NULL);
}

const struct ct_family ct_family_gc = { .name = "gc", .reset = gc_reset };
