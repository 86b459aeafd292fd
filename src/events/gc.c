/* SPDX-License-Identifier: MIT */
/* Garbage collections as spans (category gc, off by default). */
#include "../handlers.h"

HRESULT on_GarbageCollectionStarted(struct ct_thread *t, int ngen, BOOL *collected, uint32_t reason)
{
	json_t *gens;

	if (!ct_on(CAT_GC))
		return S_OK;
	gens = json_array();
	for (int i = 0; collected && i < ngen && i < 16; i++)
		if (collected[i])
			json_array_append_new(gens, json_integer(i));
	ct_emit(t, EV_GC, PH_BEGIN, 0,
		json_pack("{s:o,s:s}", "generations", gens, "reason", reason == 1 ? "induced" : "other"));
	return S_OK;
}

HRESULT on_GarbageCollectionFinished(struct ct_thread *t)
{
	if (ct_on(CAT_GC))
		ct_emit(t, EV_GC, PH_END, 0, NULL);
	return S_OK;
}
