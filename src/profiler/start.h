/* SPDX-License-Identifier: MIT */
/* Starting to trace, however the runtime loaded clrtrace (profiler.c). */
#pragma once

#include "common/config.h"
#include "common/vocabulary.h"
#include "common/loadmode.h"
#include "profiler/abi/corprof.h"

struct ct_thread;

/* Where the configuration comes from, and how the runtime loaded us. */
struct ct_start {
	enum ct_load how;
	bool attached;       /* into a running process (InitializeForAttach) */
	ct_getenv_fn getenv; /* the CLRTRACE_* variables */
};

/* How this copy was loaded, and the configured categories the runtime
 * would refuse that way (left out; runtime.init lists them). */
extern enum ct_load ct_loaded;
extern unsigned ct_not_enabled;

/* Register the family table (families.def) with the core. */
void ct_families_start(void);

/* Read the configuration, open the outputs, set the event mask, emit
 * runtime.init: Initialize and InitializeForAttach. */
HRESULT ct_start(struct ct_thread *t, com_object *info_unk, const struct ct_start *start);

/* The end of the trace: EV (runtime.shutdown or runtime.detach) with the
 * totals, flush, close; tracing stops. */
void ct_stop(struct ct_thread *t, enum ct_event ev);

/* Ask the runtime for the callbacks of the enabled categories; 0, or -EIO
 * (said) when it refuses. */
int ct_set_event_mask(void);
