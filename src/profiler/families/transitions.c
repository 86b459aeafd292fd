/* SPDX-License-Identifier: MIT */
/* Managed/unmanaged transitions (category transitions, off by default). */
#include "profiler/families/handlers.h"

/* One transition record; the runtime does not pair these reliably, so
 * they stay instants. */
static void transition(struct ct_thread *t, const char *direction, FunctionID id, uint32_t reason)
{
	JW_FIELDS(f, 3);

	if (!ct_wants(EV_TRANSITION))
		return;
	jwf_str(&f, "direction", direction);
	jwf_str(&f, "reason", reason ? "return" : "call");
	jwf_str(&f, "function", ct_function_name(id));
	ct_emit(t, EV_TRANSITION, PH_INSTANT, 0, &f);
}

HRESULT on_ManagedToUnmanagedTransition(struct ct_thread *t, FunctionID id, uint32_t reason)
{
	transition(t, "to_unmanaged", id, reason);
	return S_OK;
}

HRESULT on_UnmanagedToManagedTransition(struct ct_thread *t, FunctionID id, uint32_t reason)
{
	transition(t, "to_managed", id, reason);
	return S_OK;
}

const struct ct_family ct_family_transitions = { .name = "transitions" };
