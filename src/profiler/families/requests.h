/* SPDX-License-Identifier: MIT */
/* Which request an exception belongs to (the requests category, requests.c). */
#pragma once

#include "profiler/core/tracer.h"

/* Start the in-process EventPipe session (the category on, ICorProfilerInfo12
 * or later); says why not in one line.  0 or a negative errno. */
int ct_requests_start(void);
/* Stop it (before the runtime goes). */
void ct_requests_stop(void);
/* The request live on T's thread now, as the members a throw's records
 * take: ,"request":{"id","method","path"} (a new text), or NULL: none,
 * or not known.  Inside ExceptionThrown only. */
struct jw_text *ct_request_fields(struct ct_thread *t);
/* Totals for runtime.shutdown into F (4 fields): requests seen, lost,
 * probes, matched. */
void ct_requests_totals(struct jw_fields *f);
