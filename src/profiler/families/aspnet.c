/* SPDX-License-Identifier: MIT */
/*
 * The in-process EventPipe session (ICorProfilerInfo12) on ASP.NET Core's
 * EventSources, shared by two categories:
 *
 *   requests  which request an exception belongs to (requests.c): Hosting's
 *             and Kestrel's request events, with the TPL's activity flow,
 *             for the whole run, from the runtime's start;
 *   startup   when the program is ready (startup.c): Hosting's ServerReady
 *             (the server listens) or its first RequestStop (a request was
 *             served), from the load of Microsoft.AspNetCore.Hosting until
 *             the first of them.
 *
 * One session: the runtime delivers each event once to every session
 * that takes it, so a second one would deliver the request events twice.
 * The runtime delivers events to EventPipeEventDelivered synchronously,
 * on the thread that writes them.  See DESIGN.md, "Which request" and
 * "Ready".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "profiler/abi/info.h"
#include "profiler/families/aspnet.h"
#include "profiler/families/startup-tier.h"
#include "profiler/families/handlers.h"
#include "profiler/families/requests.h"
#include "profiler/families/startup.h"

const WCHAR ct_aspnet_hosting[] = u"Microsoft.AspNetCore.Hosting";
const WCHAR ct_aspnet_kestrel[] = u"Microsoft-AspNetCore-Server-Kestrel";

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* session, users, sources */
static EVENTPIPE_SESSION session;
static unsigned users; /* enum ct_aspnet_user bits */

/* The providers whose events came, by handle (few: a session of four). */
#define SOURCES_MAX 16
static struct {
	EVENTPIPE_PROVIDER handle;
	enum ct_aspnet_source source;
} sources[SOURCES_MAX];
static size_t n_sources;

/* Which source PROVIDER is (its name asked once). */
static enum ct_aspnet_source source_of(EVENTPIPE_PROVIDER provider)
{
	WCHAR name[64];
	ULONG len = 0;
	enum ct_aspnet_source s = ASPNET_OTHER;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_sources; i++)
		if (sources[i].handle == provider) {
			s = sources[i].source;
			pthread_mutex_unlock(&lock);
			return s;
		}
	pthread_mutex_unlock(&lock);
	if (SUCCEEDED(info_EventPipeGetProviderInfo(ct.info, provider, ELEMENTSOF(name), &len, name)) &&
	    len <= ELEMENTSOF(name)) {
		if (len == sizeof(ct_aspnet_hosting) / sizeof(WCHAR) &&
		    !memcmp(name, ct_aspnet_hosting, sizeof(ct_aspnet_hosting)))
			s = ASPNET_HOSTING;
		else if (len == sizeof(ct_aspnet_kestrel) / sizeof(WCHAR) &&
			 !memcmp(name, ct_aspnet_kestrel, sizeof(ct_aspnet_kestrel)))
			s = ASPNET_KESTREL;
		else if (len == ct_startup_tier_provider_len &&
			 !memcmp(name, ct_startup_tier_provider, len * sizeof(WCHAR)))
			s = ASPNET_RUNTIME;
	}
	pthread_mutex_lock(&lock);
	if (n_sources < SOURCES_MAX)
		sources[n_sources++] = (typeof(sources[0])){ provider, s };
	pthread_mutex_unlock(&lock);
	return s;
}

HRESULT on_EventPipeEventDelivered(struct ct_thread *t, UINT_PTR provider, DWORD id, DWORD version, ULONG cb_meta,
				   const uint8_t *meta, ULONG cb_data, const uint8_t *data, const GUID *activity,
				   const GUID *related, ThreadID thread, ULONG nframes, UINT_PTR *frames)
{
	enum ct_aspnet_source src;

	(void)version, (void)cb_meta, (void)meta, (void)thread, (void)nframes, (void)frames;
	if (ct_requests_probe_delivered(t, provider, activity))
		return S_OK;
	src = source_of(provider);
	if (src == ASPNET_RUNTIME) {
		ct_startup_tier_event(t, id, cb_data, data);
		return S_OK;
	}
	if (id != ASPNET_REQUEST_START && id != ASPNET_REQUEST_STOP && id != ASPNET_SERVER_READY)
		return S_OK;
	if (src == ASPNET_HOSTING)
		ct_startup_hosting(t, id);
	if (src != ASPNET_OTHER && id != ASPNET_SERVER_READY)
		ct_requests_event(src, id, data, cb_data, activity, related);
	return S_OK;
}

int ct_aspnet_start(enum ct_aspnet_user user, const COR_PRF_EVENTPIPE_PROVIDER_CONFIG *more, size_t n)
{
	COR_PRF_EVENTPIPE_PROVIDER_CONFIG cfg[8] = {
		{ ct_aspnet_hosting, 0, COR_PRF_EVENTPIPE_INFORMATIONAL, NULL },
	};
	const char *who = user == ASPNET_FOR_REQUESTS ? "requests" : "startup";
	HRESULT hr;

	if (n >= ELEMENTSOF(cfg))
		return -E2BIG;
	if (ct.info_version < 12) {
		ct_say_once(who, "this runtime has no in-process EventPipe (ICorProfilerInfo12); no %s",
			    user == ASPNET_FOR_REQUESTS ? "requests" : "server or request as ready");
		return -ENOTSUP;
	}
	if (n)
		memcpy(cfg + 1, more, n * sizeof(*more));
	pthread_mutex_lock(&lock);
	hr = S_OK;
	if (!session)
		hr = info_EventPipeStartSession(ct.info, (ULONG)(n + 1), cfg, false, &session);
	if (SUCCEEDED(hr))
		users |= user;
	pthread_mutex_unlock(&lock);
	if (FAILED(hr)) {
		ct_say_once(who, "the runtime refused the EventPipe session (0x%x); no %s", (unsigned)hr,
			    user == ASPNET_FOR_REQUESTS ? "requests" : "server or request as ready");
		return -EIO;
	}
	return 0;
}

static void *stopper_main(void *arg)
{
	(void)info_EventPipeStopSession(ct.info, (EVENTPIPE_SESSION)(uintptr_t)arg);
	return NULL;
}

void ct_aspnet_release(enum ct_aspnet_user user)
{
	EVENTPIPE_SESSION s = 0;
	pthread_attr_t attr;
	pthread_t th;

	pthread_mutex_lock(&lock);
	users &= ~(unsigned)user;
	if (!users) {
		s = session;
		session = 0;
	}
	pthread_mutex_unlock(&lock);
	if (!s)
		return;
	/* the runtime's stop waits for every event write in progress, this
	 * thread's own among them: on another thread */
	if (pthread_attr_init(&attr) == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&th, &attr, stopper_main, (void *)(uintptr_t)s) == 0)
			s = 0;
		pthread_attr_destroy(&attr);
	}
	if (s) { /* no thread: the session stays, and is stopped at the end */
		pthread_mutex_lock(&lock);
		if (!session)
			session = s;
		else
			s = 0;
		pthread_mutex_unlock(&lock);
	}
}

void ct_aspnet_stop(void)
{
	EVENTPIPE_SESSION s;

	pthread_mutex_lock(&lock);
	s = session;
	session = 0;
	users = 0;
	pthread_mutex_unlock(&lock);
	if (s)
		(void)info_EventPipeStopSession(ct.info, s);
}
