/* SPDX-License-Identifier: MIT */
/* Which request an exception belongs to (the requests category, requests.c). */
#pragma once

#include "profiler/core/tracer.h"
#include "profiler/families/aspnet.h"

/* Start the in-process EventPipe session (aspnet.c) with the providers
 * the category wants (the category on, ICorProfilerInfo12 or later); says
 * why not in one line.  0 or a negative errno. */
int ct_requests_start(void);
/* Forget the live requests (after ct_aspnet_stop, before the runtime goes). */
void ct_requests_stop(void);
/* An event of PROVIDER delivered to T: true if it is the probe's (its
 * ACTIVITY kept for ct_request_fields), which nothing else takes. */
bool ct_requests_probe_delivered(struct ct_thread *t, EVENTPIPE_PROVIDER provider, const GUID *activity);
/* Event ID of SRC (a request's start or stop; DATA[0..LEN) its payload)
 * with its activity ids, delivered by the session. */
void ct_requests_event(enum ct_aspnet_source src, DWORD id, const uint8_t *data, size_t len, const GUID *activity,
		       const GUID *related);
/* The request live on T's thread now, as the members a throw's records
 * take: ,"request":{"id","method","path"} (a new text), or NULL: none,
 * or not known.  Inside ExceptionThrown only. */
struct jw_text *ct_request_fields(struct ct_thread *t);
/* Totals for runtime.shutdown into F (4 fields): requests seen, lost,
 * probes, matched. */
void ct_requests_totals(struct jw_fields *f);
