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
/* The runtime's provider name (aspnet.c's dispatch knows its events by
 * it), and its length in WCHARs with the terminating 0. */
extern const WCHAR ct_startup_tier_provider[];
extern const size_t ct_startup_tier_provider_len;
/* An event of the runtime's provider, ID, delivered to
 * EventPipeEventDelivered: a MethodLoad gives T's thread its last tier. */
void ct_startup_tier_event(struct ct_thread *t, DWORD id, ULONG cb_data, const uint8_t *data);
/* The tier of the compile of FN that just ended on T's thread, by its name
 * in common/jit-tiers.def, or NULL: not known.  Forgets it. */
const char *ct_startup_tier_take(struct ct_thread *t, FunctionID fn);
/* The MethodLoad events delivered, and those that gave a compile its tier
 * (for startup.cost). */
void ct_startup_tier_totals(uint64_t *n_events, uint64_t *n_matched);
