/* SPDX-License-Identifier: MIT */
/* Managed/unmanaged transitions (category transitions, off by default). */
#include "profiler/families/handlers.h"

/* One transition record; the runtime does not pair these reliably, so
 * they stay instants. */
static void transition(struct ct_thread *t, const char *direction, FunctionID id, uint32_t reason)
{
	if (ct_wants(EV_TRANSITION))
		ct_emit_json(t, EV_TRANSITION, PH_INSTANT, 0,
			json_pack("{s:s,s:s,s:s}", "direction", direction, "reason", reason ? "return" : "call",
				  "function", ct_function_name(id)));
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
