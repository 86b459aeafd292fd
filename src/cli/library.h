/* SPDX-License-Identifier: MIT */
/* Where clrtrace finds the profiler library. */
#pragma once

/* The places looked at, in order, for an error line. */
extern const char cli_library_places[];
/* The absolute path of libclrtrace.so (malloc'd), or NULL: $CLRTRACE_LIBRARY,
 * next to clrtrace (the build tree), where this install put it relative to
 * clrtrace (<bindir>/../lib/clrtrace when installed with another prefix or
 * into a DESTDIR), then the configured directory. */
char *cli_find_library(void);
