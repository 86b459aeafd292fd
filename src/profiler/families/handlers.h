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

/* A thing a load span is about, as the fields of O (at most 3) from its ID:
 * NAMED, the runtime can name it now; KEEP, a name O borrows (freed after
 * the record is written). */
typedef void ct_load_fields(struct jw_fields *o, UINT_PTR id, bool named, char **keep);

/* One record of a load span: {FIELD: THING(id)} and, at an end, the HR. */
static inline void ct_load_record(struct ct_thread *t, enum ct_event ev, enum ct_phase ph, UINT_PTR id,
				  const char *field, ct_load_fields *thing, bool named, const HRESULT *hr,
				  int64_t (*emit)(struct ct_thread *, enum ct_event, enum ct_phase, uint64_t,
						  const struct jw_fields *))
{
	_cleanup_free_ char *keep = NULL;
	JW_FIELDS(o, 3);
	JW_FIELDS(f, 2);

	thing(&o, id, named, &keep);
	jwf_obj(&f, field, &o);
	if (hr)
		jwf_hr(&f, "hr", (uint32_t)*hr);
	emit(t, ev, ph, id, &f);
}

/* One Started/Finished pair of load (or unload) callbacks as a span of EV, the thing as FIELD
 * made by THING (ct_load_fields).  The runtime can name a thing only once it is loaded, and not
 * once it is unloaded: the begin of a load and the end of an unload carry the id alone.
 * EMIT is ct_emit, or ct_emit_handoff for a span the runtime may end on another thread. */
#define LOAD_SPAN(started, finished, ev, field, thing, named_at_begin, emit) \
	HRESULT on_##started(struct ct_thread *t, UINT_PTR id) \
	{ \
		if (ct_wants(ev)) \
			ct_load_record(t, ev, PH_BEGIN, id, field, thing, named_at_begin, NULL, emit); \
		return S_OK; \
	} \
	HRESULT on_##finished(struct ct_thread *t, UINT_PTR id, HRESULT hr) \
	{ \
		if (ct_wants(ev)) \
			ct_load_record(t, ev, PH_END, id, field, thing, !(named_at_begin) && SUCCEEDED(hr), &hr, \
				       emit); \
		return S_OK; \
	}
