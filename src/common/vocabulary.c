/* SPDX-License-Identifier: MIT */
/* Tables behind vocabulary.h, generated from vocabulary.def. */
#include <string.h>

#include "common/strtable.h"
#include "common/vocabulary.h"

const struct ct_event_info ct_events[_EV_MAX] = {
#define EV(id, nm, cat, knd, prio, msgid, desc, msg, col, describe, stats, subject, body) \
	[EV_##id] = { .name = nm, .name_len = sizeof(nm) - 1, .category = cat, .kind = knd, .priority = prio, \
		      .message_id = msgid, .description = desc, .message = msg, .color = col },
#include "common/vocabulary.def"
#undef EV
};

const struct ct_category_info ct_categories[_CAT_MAX] = {
#define CAT(id, nm, opt, def, attach, notif, ...) \
	[CAT_##id] = { .name = nm, .optional = opt, .default_on = def, .after_attach = attach, \
		       .as_notification = notif },
#include "common/categories.def"
#undef CAT
};

static const char *const ct_phase_table[_PH_MAX] = {
	[PH_INSTANT] = "instant",
	[PH_BEGIN] = "begin",
	[PH_END] = "end",
};

/* ct_phase_to_string(), ct_phase_from_string() (or _PH_INVALID). */
DEFINE_STRING_TABLE_LOOKUP(ct_phase, enum ct_phase, _PH_INVALID)

const char *const ct_outcome_table[_OUTCOME_MAX + 1] = {
	[OUTCOME_CAUGHT] = "caught",
	[OUTCOME_UNHANDLED] = "unhandled",
	[OUTCOME_SWALLOWED] = "swallowed",
	[OUTCOME_SUPERSEDED] = "superseded",
	[OUTCOME_RETHROWN] = "rethrown",
	[OUTCOME_UNKNOWN] = "unknown",
	[_OUTCOME_MAX] = NULL,
};

/* ct_outcome_to_string(), ct_outcome_from_string() (or _OUTCOME_INVALID). */
DEFINE_STRING_TABLE_LOOKUP(ct_outcome, enum ct_outcome, _OUTCOME_INVALID)

const char *const ct_fate_table[_FATE_MAX + 1] = {
	[FATE_HANDLED] = "handled",
	[FATE_HANDLED_BY_FRAMEWORK] = "handled_by_framework",
	[FATE_HANDLED_BY_RUNTIME] = "handled_by_runtime",
	[FATE_STORED] = "stored",
	[FATE_SWALLOWED] = "swallowed",
	[FATE_SUPERSEDED] = "superseded",
	[FATE_WRAPPED] = "wrapped",
	[FATE_UNHANDLED] = "unhandled",
	[FATE_OPEN] = "open",
	[_FATE_MAX] = NULL,
};

/* ct_fate_to_string(), ct_fate_from_string() (or _FATE_INVALID). */
DEFINE_STRING_TABLE_LOOKUP(ct_fate, enum ct_fate, _FATE_INVALID)

const char *const ct_handler_kind_table[_HANDLER_MAX + 1] = {
	[HANDLER_PROGRAM] = "program",
	[HANDLER_ASYNC] = "async",
	[HANDLER_FRAMEWORK] = "framework",
	[HANDLER_RUNTIME] = "runtime",
	[_HANDLER_MAX] = NULL,
};

/* ct_handler_kind_to_string(), ct_handler_kind_from_string() (or _HANDLER_INVALID). */
DEFINE_STRING_TABLE_LOOKUP(ct_handler_kind, enum ct_handler_kind, _HANDLER_INVALID)

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
	/* the start-up report counts the collections before ready: the startup
	 * category writes the gc spans too (its mask has the GC's bit) */
	if ((categories >> CAT_STARTUP) & 1u)
		set |= UINT64_C(1) << EV_GC;
	return set;
}
