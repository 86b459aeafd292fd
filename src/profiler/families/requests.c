/* SPDX-License-Identifier: MIT */
/*
 * Which request an exception belongs to (the requests category).
 *
 * An in-process EventPipe session (ICorProfilerInfo12) on ASP.NET Core's
 * request events, with the TPL's activity flow: each request is an
 * EventSource activity, whose id follows the request's async flow into the
 * thread that runs it.  Its start and stop events (delivered to
 * EventPipeEventDelivered, synchronously, on the thread that writes them)
 * fill a table of live requests by activity id.  At a throw, clrtrace
 * writes one event of its own, without data or stack, and reads back the
 * thread's current activity id from its delivery: the table names the
 * request.  The session is the one aspnet.c keeps (shared with the startup
 * category).  See DESIGN.md, "Which request".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf16.h"
#include "profiler/abi/info.h"
#include "profiler/families/aspnet.h"
#include "profiler/families/requests.h"

static const WCHAR tpl_name[] = u"System.Threading.Tasks.TplEventSource";
static const WCHAR probe_name[] = u"clrtrace-request-probe";
#define TPL_FLOW_ACTIVITY_IDS 0x80ull /* TplEventSource.Keywords.TasksFlowActivityIds */

static EVENTPIPE_PROVIDER probe_provider;
static EVENTPIPE_EVENT probe_event;
static atomic_bool on; /* the session runs for this category */

/* One live request, or Kestrel's view of it, by activity id. */
struct req {
	GUID activity, parent;
	enum ct_aspnet_source source;
	char *a, *b; /* Hosting: method, path; Kestrel: connection id, request id */
	struct req *next;
};
#define REQ_BUCKETS 1024
#define REQ_MAX 65536 /* live entries kept; more are counted as lost */
static struct req *reqs[REQ_BUCKETS];
static size_t n_reqs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* reqs, n_reqs */
static atomic_ulong started, lost, probes, matched;

static unsigned guid_hash(const GUID *g)
{
	uint32_t w[4];

	memcpy(w, g, sizeof(w));
	return (w[0] ^ w[1] ^ w[2] ^ (w[3] * 2654435761u)) & (REQ_BUCKETS - 1);
}

static bool guid_zero(const GUID *g)
{
	static const GUID zero;

	return guid_equal(g, &zero);
}

/* The entry of activity G (locked), and where its link is. */
static struct req **req_slot(const GUID *g)
{
	struct req **p = &reqs[guid_hash(g)];

	while (*p && !guid_equal(&(*p)->activity, g))
		p = &(*p)->next;
	return p;
}

static void req_free(struct req *r)
{
	free(r->a);
	free(r->b);
	free(r);
}

/* The next NUL-terminated UTF-16 string of DATA at *OFF, as UTF-8 (NULL:
 * none, or out of memory); *OFF moves past it. */
static char *payload_string(const uint8_t *data, size_t len, size_t *off)
{
	size_t n = 0, start = *off;
	uint16_t *s;
	char *out;

	while (start + 2 * n + 1 < len && (data[start + 2 * n] || data[start + 2 * n + 1]))
		n++;
	if (start + 2 * n + 1 >= len)
		return NULL;
	*off = start + 2 * (n + 1);
	s = malloc(2 * n + 2);
	if (!s)
		return NULL;
	memcpy(s, data + start, 2 * n); /* the payload need not be aligned */
	out = utf16_to_utf8(s, n);
	free(s);
	return out;
}

static void on_start(enum ct_aspnet_source src, const uint8_t *data, size_t len, const GUID *activity, const GUID *related)
{
	struct req *r, **p;
	size_t off = 0;

	if (!activity || guid_zero(activity))
		return;
	r = calloc(1, sizeof(*r));
	if (!r) {
		atomic_fetch_add(&lost, 1);
		return;
	}
	r->activity = *activity;
	if (related)
		r->parent = *related;
	r->source = src;
	r->a = payload_string(data, len, &off);
	r->b = r->a ? payload_string(data, len, &off) : NULL;
	if (src == ASPNET_HOSTING)
		atomic_fetch_add(&started, 1);
	pthread_mutex_lock(&lock);
	p = req_slot(activity);
	if (*p || n_reqs >= REQ_MAX) {
		pthread_mutex_unlock(&lock);
		atomic_fetch_add(&lost, 1);
		req_free(r);
		return;
	}
	*p = r;
	n_reqs++;
	pthread_mutex_unlock(&lock);
}

static void on_stop(const GUID *activity)
{
	struct req *r, **p;

	if (!activity)
		return;
	pthread_mutex_lock(&lock);
	p = req_slot(activity);
	r = *p;
	if (r) {
		*p = r->next;
		n_reqs--;
	}
	pthread_mutex_unlock(&lock);
	if (r)
		req_free(r);
}

bool ct_requests_probe_delivered(struct ct_thread *t, EVENTPIPE_PROVIDER provider, const GUID *activity)
{
	if (!probe_provider || provider != probe_provider)
		return false;
	/* nested inside ct_request_fields: copy, nothing more */
	if (activity)
		t->activity = *activity;
	t->activity_read = activity != NULL;
	return true;
}

void ct_requests_event(enum ct_aspnet_source src, DWORD id, const uint8_t *data, size_t len, const GUID *activity,
		       const GUID *related)
{
	if (!atomic_load_explicit(&on, memory_order_relaxed))
		return;
	if (id == ASPNET_REQUEST_START)
		on_start(src, data, len, activity, related);
	else if (id == ASPNET_REQUEST_STOP)
		on_stop(activity);
}

struct jw_text *ct_request_fields(struct ct_thread *t)
{
	COR_PRF_EVENT_DATA none = { 0 };
	const char *method = NULL, *path = NULL, *id = NULL;
	GUID g;
	struct jw_text *out = NULL;

	if (!probe_event)
		return NULL;
	t->activity_read = false;
	if (FAILED(info_EventPipeWriteEvent(ct.info, probe_event, 0, &none, NULL, NULL)) || !t->activity_read)
		return NULL;
	atomic_fetch_add(&probes, 1);
	g = t->activity;
	pthread_mutex_lock(&lock);
	/* the activity, and its parents: Kestrel's request and Hosting's nest */
	for (int depth = 0; depth < 4 && !guid_zero(&g); depth++) {
		struct req *r = *req_slot(&g);

		if (!r)
			break;
		if (r->source == ASPNET_HOSTING && !method)
			method = r->a, path = r->b;
		else if (r->source == ASPNET_KESTREL && !id)
			id = r->b;
		g = r->parent;
	}
	if (method || id) {
		struct jw w = { 0 };
		JW_FIELDS(req, 3);
		JW_FIELDS(f, 1);

		jwf_str(&req, "id", id);
		jwf_str(&req, "method", method);
		jwf_str(&req, "path", path);
		jwf_obj(&f, "request", &req);
		jw_fields(&w, f.f, f.n);
		out = jw_text_new(&w);
		jw_free(&w);
	}
	pthread_mutex_unlock(&lock);
	if (out)
		atomic_fetch_add(&matched, 1);
	return out;
}

int ct_requests_start(void)
{
	/* with Hosting, which the session always has */
	const COR_PRF_EVENTPIPE_PROVIDER_CONFIG more[] = {
		{ ct_aspnet_kestrel, 0, COR_PRF_EVENTPIPE_INFORMATIONAL, NULL },
		{ tpl_name, TPL_FLOW_ACTIVITY_IDS, COR_PRF_EVENTPIPE_INFORMATIONAL, NULL },
		{ probe_name, 1, COR_PRF_EVENTPIPE_INFORMATIONAL, NULL },
	};
	HRESULT hr;
	int r;

	if (!ct_on(CAT_REQUESTS))
		return 0;
	if (ct.info_version < 12)
		return ct_aspnet_start(ASPNET_FOR_REQUESTS, NULL, 0); /* says why not */
	hr = info_EventPipeCreateProvider(ct.info, probe_name, &probe_provider);
	if (SUCCEEDED(hr))
		hr = info_EventPipeDefineEvent(ct.info, probe_provider, u"Probe", 1, 1, 0,
					       COR_PRF_EVENTPIPE_INFORMATIONAL, 0, false, 0, NULL, &probe_event);
	if (FAILED(hr)) {
		probe_event = 0;
		ct_say_once("requests", "the runtime refused the request probe's provider (0x%x); no requests",
			    (unsigned)hr);
		return -EIO;
	}
	r = ct_aspnet_start(ASPNET_FOR_REQUESTS, more, ELEMENTSOF(more));
	if (r < 0) {
		probe_event = 0;
		return r;
	}
	atomic_store(&on, true);
	return 0;
}

void ct_requests_stop(void)
{
	probe_event = 0;
	atomic_store(&on, false);
	/* a later attach starts afresh */
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < REQ_BUCKETS; i++)
		while (reqs[i]) {
			struct req *r = reqs[i];

			reqs[i] = r->next;
			req_free(r);
		}
	n_reqs = 0;
	pthread_mutex_unlock(&lock);
}

void ct_requests_totals(struct jw_fields *f)
{
	jwf_int(f, "started", (int64_t)atomic_load(&started));
	jwf_int(f, "lost", (int64_t)atomic_load(&lost));
	jwf_int(f, "probes", (int64_t)atomic_load(&probes));
	jwf_int(f, "matched", (int64_t)atomic_load(&matched));
}
