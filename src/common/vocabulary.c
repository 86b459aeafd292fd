/* SPDX-License-Identifier: MIT */
/* Tables behind vocabulary.h, generated from vocabulary.def. */
#include <string.h>

#include "profiler/abi/corprof.h"
#include "common/strtable.h"
#include "common/vocabulary.h"

const struct ct_event_info ct_events[_EV_MAX] = {
#define EV(id, nm, cat, knd, prio, msgid, desc, msg, col, describe, stats, subject, body) \
	[EV_##id] = { .name = nm, .category = cat, .kind = knd, .priority = prio, \
		      .message_id = msgid, .description = desc, .message = msg, .color = col },
#include "common/vocabulary.def"
#undef EV
};

const struct ct_category_info ct_categories[_CAT_MAX] = {
	[CAT_RUNTIME] = { "runtime", false, true, 0, 0 },
	[CAT_TRACE] = { "trace", false, true, 0, 0 },
	[CAT_EXCEPTIONS] = { "exceptions", true, true, COR_PRF_MONITOR_EXCEPTIONS, 0 },
	/* the search and unwind passes frame by frame: the summary lists the
	 * frames anyway, and these spans are most of an exception's records */
	[CAT_FRAMES] = { "frames", true, false, COR_PRF_MONITOR_EXCEPTIONS, 0 },
	[CAT_LOADER] = { "loader", true, true,
		COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
		COR_PRF_MONITOR_MODULE_LOADS, 0 },
	[CAT_CLASSES] = { "classes", true, false, COR_PRF_MONITOR_CLASS_LOADS, 0 },
	[CAT_THREADS] = { "threads", true, true, COR_PRF_MONITOR_THREADS, 0 },
	[CAT_SUSPEND] = { "suspend", true, true, COR_PRF_MONITOR_SUSPENDS, 0 },
	[CAT_TRANSITIONS] = { "transitions", true, false, COR_PRF_MONITOR_CODE_TRANSITIONS, 0 },
	/* BASIC_GC gives GC start/finish without disabling concurrent GC. */
	[CAT_GC] = { "gc", true, false, 0, COR_PRF_HIGH_BASIC_GC },
	[CAT_JIT] = { "jit", true, false, COR_PRF_MONITOR_JIT_COMPILATION, 0 },
	/* no events of its own: the managed stack at each throw, in
	 * exception.throw and exception.summary */
	[CAT_STACKS] = { "stacks", true, false, COR_PRF_MONITOR_EXCEPTIONS, 0 },
};

static const char *const ct_phase_table[_PH_MAX] = {
	[PH_INSTANT] = "instant",
	[PH_BEGIN] = "begin",
	[PH_END] = "end",
};

/* ct_phase_to_string(), ct_phase_from_string() (or _PH_INVALID). */
DEFINE_STRING_TABLE_LOOKUP(ct_phase, enum ct_phase, _PH_INVALID)

/* Event from its name, or _EV_INVALID. */
DEFINE_STRING_TABLE_FIELD_FROM_STRING(ct_event_from_string, enum ct_event, ct_events, name, _EV_INVALID)

/* Category from its name, or _CAT_INVALID. */
DEFINE_STRING_TABLE_FIELD_FROM_STRING(ct_category_from_string, enum ct_category, ct_categories, name, _CAT_INVALID)

/* Bit set of the categories on by default. */
unsigned ct_default_categories(void)
{
	unsigned set = 0;

	for (int i = 0; i < _CAT_MAX; i++)
		if (ct_categories[i].default_on)
			set |= 1u << i;
	return set;
}

_Static_assert(_EV_MAX <= 64, "an event mask is 64 bits");

/* Bit set of the events of the categories in CATEGORIES. */
uint64_t ct_event_mask(unsigned categories)
{
	uint64_t set = 0;

	for (int i = 0; i < _EV_MAX; i++)
		if ((categories >> ct_events[i].category) & 1u)
			set |= UINT64_C(1) << i;
	return set;
}
