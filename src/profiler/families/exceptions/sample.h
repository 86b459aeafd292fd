/* SPDX-License-Identifier: MIT */
/* Which errors are written in full: a CLRTRACE_EXCEPTIONS Type:N limit and
 * the CLRTRACE_BUDGET, decided once per error (the machine's keep), and
 * the exact count of what they left out (trace.left_out).  DESIGN.md
 * "Sampling". */
#pragma once

#include <stdbool.h>

#include "profiler/families/exceptions/machine.h"

struct jw;
struct jw_fields;

struct ct_thread;

/* exm_emitter.keep: is the new error IN, thrown on thread UD, written? */
bool ct_sample_keep(void *ud, const struct exm_input *in);
/* Write trace.left_out on T for what was left out and not yet said (ALL:
 * now; else only when the last one is older than the period). */
void ct_sample_report(struct ct_thread *t, bool all);
/* runtime.shutdown's totals: "suppressed" (per type, the Type:N limits)
 * and "left_out" (errors, every reason) into O. */
void ct_sample_totals(struct jw_fields *f, struct jw *sup);
/* A new trace after a detach: every count starts anew. */
void ct_sample_reset(void);
