/* SPDX-License-Identifier: MIT */
/* The family table, from families.def, registered with the core at start. */
#include <assert.h>
#include <pthread.h>

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

static void families_register(void)
{
	ct_families_register(families, ELEMENTSOF(families));
}

/* Before the first callback of the first trace (ct_start; a re-attach
 * keeps the table: threads that exit meanwhile read it). */
void ct_families_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, families_register);
}
