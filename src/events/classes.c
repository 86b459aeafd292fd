/* SPDX-License-Identifier: MIT */
/* Class load and unload spans (category classes, off by default). */
#include "../handlers.h"

/* {id, name} of a class. */
static json_t *class_json(ClassID id, bool with_name)
{
	json_t *o = json_pack("{s:o}", "id", ct_json_id(id));

	if (with_name)
		json_object_set_new(o, "name", json_string(ct_class_name(id)));
	return o;
}

HRESULT on_ClassLoadStarted(struct ct_thread *t, ClassID id)
{
	if (ct_on(CAT_CLASSES))
		ct_emit(t, EV_CLASS_LOAD, PH_BEGIN, id, json_pack("{s:o}", "class", class_json(id, false)));
	return S_OK;
}

HRESULT on_ClassLoadFinished(struct ct_thread *t, ClassID id, HRESULT hr)
{
	if (ct_on(CAT_CLASSES))
		ct_emit(t, EV_CLASS_LOAD, PH_END, id,
			json_pack("{s:o,s:o}", "class", class_json(id, SUCCEEDED(hr)), "hr", ct_json_hr(hr)));
	return S_OK;
}

HRESULT on_ClassUnloadStarted(struct ct_thread *t, ClassID id)
{
	if (ct_on(CAT_CLASSES))
		ct_emit(t, EV_CLASS_UNLOAD, PH_BEGIN, id, json_pack("{s:o}", "class", class_json(id, true)));
	return S_OK;
}

HRESULT on_ClassUnloadFinished(struct ct_thread *t, ClassID id, HRESULT hr)
{
	if (ct_on(CAT_CLASSES))
		ct_emit(t, EV_CLASS_UNLOAD, PH_END, id,
			json_pack("{s:o,s:o}", "class", class_json(id, false), "hr", ct_json_hr(hr)));
	return S_OK;
}
