/* SPDX-License-Identifier: MIT */
/* The family table, from families.def, registered with the core at start. */
#include <assert.h>

#include "common/util.h"
#include "profiler/core/family.h"
#include "profiler/start.h"

#define FAMILY(name) extern const struct ct_family ct_family_##name;
#include "profiler/families.def"
#undef FAMILY

static const struct ct_family *const families[] = {
#define FAMILY(name) &ct_family_##name,
#include "profiler/families.def"
#undef FAMILY
};

static_assert(ELEMENTSOF(families) <= CT_FAMILY_MAX, "families.def has more rows than CT_FAMILY_MAX");

/* Before the first callback of a trace (ct_start). */
void ct_families_start(void)
{
	ct_families_register(families, ELEMENTSOF(families));
}
