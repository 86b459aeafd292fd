/* SPDX-License-Identifier: MIT */
/* Prototypes of every on_<Callback>() handler, from callbacks.def. */
#pragma once

#include <stdlib.h>

#include "profiler/core/tracer.h"
#include "common/util.h"

#define HANDLER_PARAMS(...) (struct ct_thread *t __VA_OPT__(,) __VA_ARGS__)
#define CB(slot, name, params, args) HRESULT on_##name HANDLER_PARAMS params;
#include "profiler/abi/callbacks.def"
#undef CB
#undef HANDLER_PARAMS

/* One Started/Finished pair of load (or unload) callbacks as a span of EV, the thing as FIELD
 * made by TO_JSON(id, named).  The runtime can name a thing only once it is loaded, and not
 * once it is unloaded: the begin of a load and the end of an unload carry the id alone.
 * EMIT is ct_emit, or ct_emit_handoff for a span the runtime may end on another thread. */
#define LOAD_SPAN(started, finished, ev, field, to_json, named_at_begin, emit) \
	HRESULT on_##started(struct ct_thread *t, UINT_PTR id) \
	{ \
		if (ct_wants(ev)) \
			emit(t, ev, PH_BEGIN, id, json_pack("{s:o}", field, to_json(id, named_at_begin))); \
		return S_OK; \
	} \
	HRESULT on_##finished(struct ct_thread *t, UINT_PTR id, HRESULT hr) \
	{ \
		if (ct_wants(ev)) \
			emit(t, ev, PH_END, id, \
				json_pack("{s:o,s:o}", field, to_json(id, !(named_at_begin) && SUCCEEDED(hr)), "hr", \
					  ct_json_hr(hr))); \
		return S_OK; \
	}
