/* SPDX-License-Identifier: MIT */
/* The tier of each JIT compile in startup.jit, from the runtime's
 * MethodLoad events (category tiers, startup-tier.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "profiler/core/tracer.h"

/* Start the in-process EventPipe session on the runtime's JIT events
 * (category tiers on, startup.jit wanted, ICorProfilerInfo12 or later); says why not in one
 * line.  0 or a negative errno. */
int ct_startup_tier_start(void);
/* Stop it (before the runtime goes). */
void ct_startup_tier_stop(void);
/* An event delivered to EventPipeEventDelivered: true when it is the
 * runtime's (handled here, whatever it was), false when another's. */
bool ct_startup_tier_event(struct ct_thread *t, UINT_PTR provider, DWORD id, ULONG cb_data, const uint8_t *data);
/* The tier of the compile of FN that just ended on T's thread, by its name
 * in common/jit-tiers.def, or NULL: not known.  Forgets it. */
const char *ct_startup_tier_take(struct ct_thread *t, FunctionID fn);
/* The MethodLoad events delivered, and those that gave a compile its tier
 * (for startup.cost). */
void ct_startup_tier_totals(uint64_t *n_events, uint64_t *n_matched);
