/* SPDX-License-Identifier: MIT */
/* One-line human descriptions of records, shared by view and export. */
#pragma once

#include "cli/reader.h"

/* A growing string. */
struct sbuf {
	char *s;
	size_t len, cap;
};
/* Append printf-style; on ENOMEM the buffer keeps what it had. */
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_reset(struct sbuf *b);
void sb_done(struct sbuf *b);

/* Append the payload of R in words ("System.IO.IOException: boom",
 * "App.Program.Main", "gc_prep"...); unknown events get their non-common
 * fields as compact JSON. */
void describe(struct sbuf *b, const struct rec *r);
/* The last path component (for module paths). */
const char *base_name(const char *path);
