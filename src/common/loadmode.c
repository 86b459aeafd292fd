/* SPDX-License-Identifier: MIT */
/* How the runtime loaded clrtrace, and the event mask each way allows. */
#include "common/loadmode.h"
#include "common/vocabulary.h"
#include "common/util.h"

/* The ways of loading, by name (runtime.init's loaded). */
static const char *const load_names[_LOAD_MAX] = {
	[LOAD_STARTUP] = "startup",
	[LOAD_ATTACH] = "attach",
	[LOAD_NOTIFICATION] = "notification",
};

/* The name of HOW. */
const char *ct_load_to_string(enum ct_load how)
{
	return how >= 0 && how < _LOAD_MAX ? load_names[how] : NULL;
}

/* The categories of CATS that need a bit HOW does not allow
 * (categories.def says which; profiler/event-mask.c checks it against the
 * runtime's masks at compile time). */
unsigned ct_load_refused(enum ct_load how, unsigned cats)
{
	unsigned out = 0;

	if (how < 0 || how >= _LOAD_MAX)
		return cats;
	for (int i = 0; i < _CAT_MAX; i++)
		if ((cats & (1u << i)) && ((how == LOAD_ATTACH && !ct_categories[i].after_attach) ||
					   (how == LOAD_NOTIFICATION && !ct_categories[i].as_notification)))
			out |= 1u << i;
	return out;
}
