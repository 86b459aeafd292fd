/* SPDX-License-Identifier: MIT */
/* One-line human descriptions of records, shared by view and export. */
#pragma once

#include "cli/reader.h"
#include "common/strbuf.h"

/* Append the payload of R in words ("System.IO.IOException: boom",
 * "App.Program.Main", "gc_prep"...); unknown events get their non-common
 * fields as compact JSON. */
void describe(struct strbuf *b, const struct rec *r);
/* The last path component (for module paths). */
const char *base_name(const char *path);
