/* SPDX-License-Identifier: MIT */
/* A library loaded on first use (zlib-lazy.c, sd-journal-lazy.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Open SONAME and set *SLOTS[i] to its symbol NAMES[i], for i < N: all or
 * none (a partial set would fail half-way through).  False when the
 * library or one of the symbols is missing. */
bool lazy_lib_load(const char *soname, const char *const *names, void **const *slots, size_t n);
