/* SPDX-License-Identifier: MIT */
/* The process-wide state of the profiler (state.c), and what it says about
 * which events are traced. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "common/vocabulary.h"
#include "profiler/abi/corprof.h"

/* Process-wide state, set up in Initialize. */
struct ct_global {
	com_object *info;     /* ICorProfilerInfoN, highest N the runtime has */
	int info_version;
	struct ct_config cfg;
	uint64_t events;      /* bit per enum ct_event wanted (ct_wants) */
	char *program;        /* name for %n, SYSLOG_IDENTIFIER, processes filter */
	int pid;
	uint64_t start_ns;
	atomic_bool active;   /* false: every callback returns at once */
	atomic_bool shut_down;
	int runtime_major;
	bool legacy_eh;       /* .NET 8, or 9 with LegacyExceptionHandling */
};

extern struct ct_global ct;

/* Is category C traced? */
static inline bool ct_on(enum ct_category c)
{
	return (ct.cfg.categories >> c) & 1u;
}

/* Is event EV wanted?  (ct.events is set once at Initialize.) */
static inline bool ct_wants(enum ct_event ev)
{
	return (ct.events >> ev) & 1u;
}
