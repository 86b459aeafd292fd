/* SPDX-License-Identifier: MIT */
/* The in-process EventPipe session on ASP.NET Core's events (aspnet.c),
 * which the requests and startup categories share. */
#pragma once

#include <stddef.h>

#include "profiler/core/tracer.h"

/* The EventSources clrtrace knows, by their provider names; the runtime's
 * own provider (the tiers category's session, startup-tier.c) shares the
 * one EventPipeEventDelivered callback, so it is known here too. */
enum ct_aspnet_source { ASPNET_OTHER, ASPNET_HOSTING, ASPNET_KESTREL, ASPNET_RUNTIME };
extern const WCHAR ct_aspnet_hosting[];
extern const WCHAR ct_aspnet_kestrel[];

/* The events they write that clrtrace takes, by id: the same ids in
 * Microsoft.AspNetCore.Hosting (HostingEventSource) and, for the request
 * ones, Microsoft-AspNetCore-Server-Kestrel (KestrelEventSource). */
#define ASPNET_REQUEST_START 3u
#define ASPNET_REQUEST_STOP 4u
#define ASPNET_SERVER_READY 6u /* Hosting only: the server started listening */

/* Who wants the session: the requests category for the whole run, the
 * startup category until the program is ready. */
enum ct_aspnet_user { ASPNET_FOR_REQUESTS = 1, ASPNET_FOR_STARTUP = 2 };

/* Start the session for USER, on Hosting and the N providers of MORE
 * (those USER alone wants), unless one runs: then USER shares it (the
 * requests category starts first, at the runtime's start, with all it
 * wants).  Needs ICorProfilerInfo12; says why not in one line.  0 or a
 * negative errno. */
int ct_aspnet_start(enum ct_aspnet_user user, const COR_PRF_EVENTPIPE_PROVIDER_CONFIG *more, size_t n);
/* USER needs the session no more: the last user stops it, on a thread of
 * its own (never inside the runtime's event write, which a stop would
 * wait for). */
void ct_aspnet_release(enum ct_aspnet_user user);
/* Stop the session, whoever uses it (at the runtime's end). */
void ct_aspnet_stop(void);
