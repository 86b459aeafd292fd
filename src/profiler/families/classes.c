/* SPDX-License-Identifier: MIT */
/* Class load and unload spans (category classes, off by default). */
#include "profiler/families/handlers.h"

/* {id, name} of a class. */
static json_t *class_json(ClassID id, bool with_name)
{
	json_t *o = json_pack("{s:o}", "id", ct_json_id(id));

	if (with_name)
		json_object_set_new(o, "name", json_string(ct_class_name(id)));
	return o;
}

/* Class load and unload as spans: named at the end of a load and at the
 * begin of an unload (the runtime knows the name only then). */
#define CLASS_SPAN(started, finished, ev, named_at_begin) \
	HRESULT on_##started(struct ct_thread *t, ClassID id) \
	{ \
		if (ct_wants(ev)) \
			ct_emit(t, ev, PH_BEGIN, id, json_pack("{s:o}", "class", class_json(id, named_at_begin))); \
		return S_OK; \
	} \
	HRESULT on_##finished(struct ct_thread *t, ClassID id, HRESULT hr) \
	{ \
		if (ct_wants(ev)) \
			ct_emit(t, ev, PH_END, id, \
				json_pack("{s:o,s:o}", "class", class_json(id, !(named_at_begin) && SUCCEEDED(hr)), \
					  "hr", ct_json_hr(hr))); \
		return S_OK; \
	}

CLASS_SPAN(ClassLoadStarted, ClassLoadFinished, EV_CLASS_LOAD, false)
CLASS_SPAN(ClassUnloadStarted, ClassUnloadFinished, EV_CLASS_UNLOAD, true)
