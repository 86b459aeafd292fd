/* SPDX-License-Identifier: MIT */
/* One-line human descriptions of records, shared by view and export. */
#pragma once

#include <stdbool.h>

#include "cli/reader.h"
#include "common/strbuf.h"

/* Append the payload of R in words ("System.IO.IOException: boom",
 * "App.Program.Main", "gc_prep"...); unknown events get their non-common
 * fields as compact JSON. */
void describe(struct strbuf *b, const struct rec *r);
/* The last path component (for module paths). */
const char *base_name(const char *path);

/* Errors (exception.error, issue 28): one exception object from its first
 * throw to its fate.  The record is not in the vocabulary yet, so readers
 * know it by name. */
bool rec_is_error(const struct rec *r);
/* The fates, in the order the readers list them, NULL-terminated. */
extern const char *const error_fates[];
/* Its hops in words: "rethrown 2 times, awaited 8 times" ("" when none). */
void error_hops(struct strbuf *b, json_t *err);
/* Who decided it: the handler's label, else its function as view says
 * it, else "" (unhandled, open...). */
void error_handler(struct strbuf *b, json_t *err);
/* Its fate in words: "handled in F", "handled by Kestrel (500) in F",
 * "stored in a Task by F", "wrapped by #17"... */
void error_fate(struct strbuf *b, json_t *err);
/* A trace.left_out reason in words ("rate limit (budget)"). */
const char *left_out_reason(const char *reason);
/* "#14 Type: message" of an exception object E (a record's "exception"). */
void exception_text(struct strbuf *b, json_t *e);
