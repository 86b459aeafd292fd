/* SPDX-License-Identifier: MIT */
/* What md-dump's two parts (md-dump.c, md-mangle.c) share. */
#pragma once

#include "common/bytes.h"
#include <stddef.h>
#include <stdint.h>

/* The attribute md-dump looks for on each method (a U line): what the
 * tracer asks (src/profiler/families/exceptions/glue.c). */
#define UCO_NS "System.Runtime.InteropServices"
#define UCO_NAME "UnmanagedCallersOnlyAttribute"

/* What a reader's error means, for one line. */
const char *why(int k);

/* The whole of PATH in a malloc'd buffer of exactly its size: 0, or -errno. */
int read_whole(const char *path, uint8_t **ret, size_t *size);

/* md-dump mangle FILE: exit status. */
int cmd_mangle(const char *path);

