/* SPDX-License-Identifier: MIT */
/*
 * The method names of a record as clrtrace view says them (dotnet-names.h),
 * with what the record itself tells: its stack (category stacks) names the
 * caller of a frame, which tells an async method from an iterator.  Shared
 * by the journal sink (MESSAGE, CODE_FUNC) and the CLI, so that both say
 * a method the same way.
 */
#pragma once

#include <jansson.h>

#include "common/strbuf.h"

/* The raw name of the frame that called the frame named FN in the stack
 * of the record REC, or NULL. */
const char *dotnet_record_caller(json_t *rec, const char *fn);

/* FN, a raw method name from the record REC, into OUT as clrtrace view
 * says it, with its marks: "Verdicts.Program.ThrowLater [async]". */
void dotnet_record_say(json_t *rec, const char *fn, struct strbuf *out);
