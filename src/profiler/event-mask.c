/* SPDX-License-Identifier: MIT */
/* The runtime's event-mask bits of each category, from common/categories.def. */
#include "profiler/abi/corprof.h"
#include "profiler/event-mask.h"

/* The "allowed" columns of categories.def must agree with the bits. */
#define CAT(id, nm, opt, def, attach, notif, low, high)                                                \
	_Static_assert(((((low) & ~COR_PRF_ALLOWABLE_AFTER_ATTACH) == 0 &&                              \
			 ((high) & ~COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH) == 0) == (attach)),            \
		       "categories.def: the after-attach column of " nm " disagrees with its mask"); \
	_Static_assert(((((low) & ~COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER) == 0 &&                     \
			 ((high) & ~COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER) == 0) == (notif)),    \
		       "categories.def: the notification column of " nm " disagrees with its mask");
#include "common/categories.def"
#undef CAT

static const uint32_t mask_low[_CAT_MAX] = {
#define CAT(id, nm, opt, def, attach, notif, low, high) [CAT_##id] = (low),
#include "common/categories.def"
#undef CAT
};

static const uint32_t mask_high[_CAT_MAX] = {
#define CAT(id, nm, opt, def, attach, notif, low, high) [CAT_##id] = (high),
#include "common/categories.def"
#undef CAT
};

/* The event-mask bits the categories in CATS (a bit per category) need. */
void ct_category_masks(unsigned cats, uint32_t *low, uint32_t *high)
{
	*low = *high = 0;
	for (int i = 0; i < _CAT_MAX; i++)
		if ((cats >> i) & 1u) {
			*low |= mask_low[i];
			*high |= mask_high[i];
		}
}
