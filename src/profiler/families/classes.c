/* SPDX-License-Identifier: MIT */
/* Class load and unload spans (category classes, off by default). */
#include "profiler/families/handlers.h"

/* {id, name} of a class. */
static void class_fields(struct jw_fields *o, UINT_PTR id, bool with_name, char **keep)
{
	jwf_hex(o, "id", id);
	if (with_name)
		jwf_str(o, "name", ct_class_name(id));
}

/* Class load and unload as spans: named at the end of a load and at the
 * begin of an unload (the runtime knows the name only then). */
LOAD_SPAN(ClassLoadStarted, ClassLoadFinished, EV_CLASS_LOAD, "class", class_fields, false, ct_emit)
LOAD_SPAN(ClassUnloadStarted, ClassUnloadFinished, EV_CLASS_UNLOAD, "class", class_fields, true, ct_emit)

const struct ct_family ct_family_classes = { .name = "classes" };
