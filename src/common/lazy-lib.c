/* SPDX-License-Identifier: MIT */
/*
 * Loading a library on first use: clrtrace links neither zlib nor
 * libsystemd, so that a traced program and every clrtrace command do not
 * load them (and what they pull in) unless they need them.
 */
#include <dlfcn.h>

#include "common/lazy-lib.h"

bool lazy_lib_load(const char *soname, const char *const *names, void **const *slots, size_t n)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	bool all = h != NULL;

	for (size_t i = 0; all && i < n; i++)
		all = (*slots[i] = dlsym(h, names[i])) != NULL;
	if (!all)
		for (size_t i = 0; i < n; i++)
			*slots[i] = NULL; /* the handle stays: it may be shared */
	return all;
}
