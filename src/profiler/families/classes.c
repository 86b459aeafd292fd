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
LOAD_SPAN(ClassLoadStarted, ClassLoadFinished, EV_CLASS_LOAD, "class", class_json, false, ct_emit_json)
LOAD_SPAN(ClassUnloadStarted, ClassUnloadFinished, EV_CLASS_UNLOAD, "class", class_json, true, ct_emit_json)

const struct ct_family ct_family_classes = { .name = "classes" };
