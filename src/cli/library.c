/* SPDX-License-Identifier: MIT */
/* Where clrtrace finds the profiler library: relative to itself first, so an
 * install moved elsewhere (make install prefix=/opt/x, a DESTDIR, a copied
 * tree) finds its own library, then the configured path. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/library.h"
#include "common/util.h"

#define LIB "libclrtrace.so"

const char cli_library_places[] = "next to clrtrace, in <bindir>/../lib/clrtrace and in " PKGLIBDIR;

/* PATH, if it is readable (malloc'd), else NULL (and PATH freed). */
static char *readable(char *path)
{
	char *real;

	if (!path || access(path, R_OK) < 0) {
		free(path);
		return NULL;
	}
	real = realpath(path, NULL);
	free(path);
	return real;
}

/* DIR with PREFIX's part of it taken off ("" when DIR is PREFIX); NULL when
 * DIR is not under PREFIX. */
static const char *under_prefix(const char *dir, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(dir, prefix, n) != 0 || (dir[n] && dir[n] != '/'))
		return NULL;
	return dir + n;
}

/* The library where this install put it, relative to the directory of clrtrace. */
static char *relative_to(const char *exe_dir)
{
	const char *bin_rel = under_prefix(BINDIR, CT_PREFIX), *lib_rel = under_prefix(PKGLIBDIR, CT_PREFIX);
	size_t n = strlen(exe_dir), b = bin_rel ? strlen(bin_rel) : 0;
	char *path = NULL;

	/* exe_dir ends in bindir's part (/bin): the rest is the prefix it was installed with */
	if (bin_rel && lib_rel && n >= b && strcmp(exe_dir + n - b, bin_rel) == 0 &&
	    asprintf(&path, "%.*s%s/" LIB, (int)(n - b), exe_dir, lib_rel) >= 0 && (path = readable(path)))
		return path;
	if (asprintf(&path, "%s/../lib/clrtrace/" LIB, exe_dir) < 0)
		return NULL;
	return readable(path);
}

/* The absolute path of libclrtrace.so, or NULL. */
char *cli_find_library(void)
{
	char self[PATH_MAX], *slash, *path = NULL;
	const char *env = getenv("CLRTRACE_LIBRARY");
	ssize_t n;

	if (env && *env)
		return realpath(env, NULL);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			if (asprintf(&path, "%s/" LIB, self) >= 0 && (path = readable(path)))
				return path;
			if ((path = relative_to(self)))
				return path;
		}
	}
	return readable(strdup(PKGLIBDIR "/" LIB));
}
