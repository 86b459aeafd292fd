/* SPDX-License-Identifier: MIT */
/* How the runtime loaded clrtrace, and the event mask each way allows. */
#include "common/loadmode.h"
#include "common/vocabulary.h"
#include "common/util.h"

/* The event mask bits each way of loading may set (corprof.idl: all for a
 * startup profiler; COR_PRF_ALLOWABLE_AFTER_ATTACH and
 * COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER, with their HIGH halves). */
static const struct {
	const char *name;
	uint32_t low, high;
} loads[_LOAD_MAX] = {
	[LOAD_STARTUP] = { "startup", 0xFFFFFFFFu, 0xFFFFFFFFu },
	[LOAD_ATTACH] = { "attach", 0x106502FEu, 0x000000F6u },
	[LOAD_NOTIFICATION] = { "notification", 0xB1E32B7Fu, 0x000000FEu },
};

/* The name of HOW. */
const char *ct_load_to_string(enum ct_load how)
{
	return how >= 0 && how < _LOAD_MAX ? loads[how].name : NULL;
}

/* The categories of CATS that need a bit HOW does not allow. */
unsigned ct_load_refused(enum ct_load how, unsigned cats)
{
	unsigned out = 0;

	if (how < 0 || how >= _LOAD_MAX)
		return cats;
	for (int i = 0; i < _CAT_MAX; i++)
		if ((cats & (1u << i)) &&
		    ((ct_categories[i].mask_low & ~loads[how].low) || (ct_categories[i].mask_high & ~loads[how].high)))
			out |= 1u << i;
	return out;
}
