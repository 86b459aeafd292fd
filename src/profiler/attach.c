/* SPDX-License-Identifier: MIT */
/*
 * Attach: `clrtrace attach` sends the CLRTRACE_* variables `run` would set
 * as the AttachProfiler client data (NAME=VALUE\0 one after the other).
 * InitializeForAttach starts like Initialize, with the configuration read
 * from them instead of the environment.  Every category's mask is in
 * COR_PRF_ALLOWABLE_AFTER_ATTACH but transitions, which the CLI refuses
 * before sending; the runtime would refuse it in SetEventMask2 anyway.
 *
 * ProfilerAttachComplete writes runtime.attach: the modules and assemblies
 * loaded before, so that a late trace is readable.
 *
 * Detach: `clrtrace detach` sends a second AttachProfiler naming this
 * library with CLSID_clrtrace_detach.  The runtime loads the library (the
 * copy already mapped) and asks it for that class before it looks for a main
 * profiler; our DllGetClassObject clears the event mask, calls
 * RequestProfilerDetach, writes runtime.detach and closes the outputs, and
 * its answer is the reply to the attach.
 * No thread of ours watches for it.  The library is linked -z nodelete:
 * after the runtime's dlclose it stays mapped, and a later attach starts
 * the same copy anew.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "profiler/abi/info.h"
#include "profiler/core/handoff.h"
#include "profiler/families/handlers.h"
#include "profiler/start.h"

#define CLIENT_DATA_MAX 65536 /* an IPC message is at most 64 KiB */
/* RequestProfilerDetach's expected completion: the runtime's detach thread
 * waits this long before it looks for threads still in our callbacks (and
 * 2x, then every 5 s, while there are) */
#define DETACH_WAIT_MS 500
#define DETACH_QUIET_US 100000 /* after the event mask is cleared */

/* The client data of the attach (a copy: the runtime's is valid only
 * during the call). */
static char *client_data;
static size_t client_len;

static atomic_bool detaching; /* from RequestProfilerDetach to ProfilerDetachSucceeded */
/* the end of the trace and the runtime's ProfilerDetachSucceeded, one
 * after the other (the runtime's wait is a time, not a promise) */
static pthread_mutex_t detach_lock = PTHREAD_MUTEX_INITIALIZER;

static HRESULT detach_requested(void);

/* A configuration variable, from the client data. */
static const char *client_getenv(const char *name)
{
	size_t l = strlen(name);

	for (size_t i = 0; i < client_len; i += strlen(client_data + i) + 1)
		if (strncmp(client_data + i, name, l) == 0 && client_data[i + l] == '=')
			return client_data + i + l + 1;
	return NULL;
}

/* Is the client data a list of CLRTRACE_NAME=VALUE strings, each ended by
 * a NUL?  (It comes from another process: check it all.) */
static bool client_data_valid(const char *p, size_t n)
{
	if (n == 0)
		return true;
	if (n > CLIENT_DATA_MAX || p[n - 1] != 0)
		return false;
	for (size_t i = 0; i < n; i += strlen(p + i) + 1)
		if (!startswith(p + i, "CLRTRACE_") || !strchr(p + i, '='))
			return false;
	return true;
}

/* Loaded into a running process: configuration from the client data. */
HRESULT on_InitializeForAttach(struct ct_thread *t, com_object *info_unk, void *data, uint32_t cb)
{
	/* attached beside a main profiler (attach --beside-profiler, or its
	 * fallback): a notification profiler, with both restrictions */
	const struct ct_start start = {
		.how = ct_notification_clsid ? LOAD_NOTIFICATION : LOAD_ATTACH,
		.attached = true,
		.getenv = client_getenv,
	};
	HRESULT hr;

	if (client_data || atomic_load(&ct.active)) /* a second attach of this copy */
		return CORPROF_E_PROFILER_ALREADY_ACTIVE;
	if ((cb && !data) || !client_data_valid(data, cb)) {
		ct_say_once("attach-data", "attach: the client data is not a list of CLRTRACE_* variables; not tracing");
		return E_INVALIDARG;
	}
	client_data = malloc(cb + 1);
	if (!client_data)
		return E_OUTOFMEMORY;
	if (cb)
		memcpy(client_data, data, cb);
	client_data[cb] = 0;
	client_len = cb;
	hr = ct_start(t, info_unk, &start);
	if (FAILED(hr)) {
		free(client_data);
		client_data = NULL;
	} else
		ct_com_set_detach_handler(detach_requested);
	return hr;
}

/* Add assembly A to the array ASMS once (SEEN: the ids so far, *N of them). */
static void add_assembly(struct jw *asms, AssemblyID a, AssemblyID **seen, size_t *n)
{
	AssemblyID *v;
	JW_FIELDS(f, 2);

	for (size_t i = 0; i < *n; i++)
		if ((*seen)[i] == a)
			return;
	if (!(v = reallocarray(*seen, *n + 1, sizeof(**seen))))
		return;
	*seen = v;
	v[(*n)++] = a;
	jwf_hex(&f, "id", a);
	jwf_str(&f, "name", ct_assembly_name(a));
	jw_item(asms, "[]");
	jw_object(asms, &f);
}

/* Module ID (of assembly A, 0: none) into the array MODS. */
static void add_module(struct jw *mods, ModuleID id, AssemblyID a)
{
	JW_FIELDS(f, 3);

	jwf_hex(&f, "id", id);
	jwf_str(&f, "path", ct_module_path(id));
	if (a)
		jwf_hex(&f, "assembly", a);
	else
		jwf_null(&f, "assembly");
	jw_item(mods, "[]");
	jw_object(mods, &f);
}

/* The runtime made us active: say what was loaded before (runtime.attach's
 * payload: the assemblies and modules already loaded). */
HRESULT on_ProfilerAttachComplete(struct ct_thread *t)
{
	_cleanup_free_ AssemblyID *seen = NULL;
	_cleanup_(jw_free) struct jw asms = { 0 }, mods = { 0 };
	com_object *e = NULL;
	ModuleID ids[32];
	ULONG got = 0;
	size_t n = 0;
	HRESULT hr;
	JW_FIELDS(f, 2);

	if (!ct_wants(EV_RUNTIME_ATTACH))
		return S_OK;
	if (SUCCEEDED(info_EnumModules(ct.info, &e)) && e) {
		do {
			hr = modenum_Next(e, ELEMENTSOF(ids), ids, &got);
			for (ULONG i = 0; SUCCEEDED(hr) && i < got && i < ELEMENTSOF(ids); i++) {
				AssemblyID a = ct_module_info(ids[i], NULL);

				add_module(&mods, ids[i], a);
				if (a)
					add_assembly(&asms, a, &seen, &n);
			}
		} while (hr == S_OK && got == ELEMENTSOF(ids));
		modenum_Release(e);
	}
	jwf_collection(&f, "assemblies", &asms, "[]");
	jwf_collection(&f, "modules", &mods, "[]");
	ct_emit(t, EV_RUNTIME_ATTACH, PH_INSTANT, 0, &f);
	return S_OK;
}

/* `clrtrace detach` (DllGetClassObject, on the runtime's diagnostics
 * thread): ask the runtime to unload us, then end the trace.  The answer
 * is the reply the command gets: CORPROF_E_PROFILER_DETACHING when the
 * detach is under way, else why not. */
static HRESULT detach_requested(void)
{
	struct ct_thread *t;
	HRESULT hr;

	if (atomic_load(&detaching)) /* the runtime has yet to unload us */
		return CORPROF_E_PROFILER_DETACHING;
	if (!atomic_load(&ct.active) || atomic_load(&ct.shut_down))
		return CORPROF_E_PROFILER_NOT_YET_INITIALIZED;
	t = ct_thread_get();
	if (!t || t->in_callback)
		return E_FAIL;
	/* from here on the runtime makes no new callback, and it waits for
	 * those under way before it unloads us */
	pthread_mutex_lock(&detach_lock);
	/* no more callbacks first, and a moment for those under way: a
	 * RequestProfilerDetach with exception callbacks on crashed the
	 * process of 4 threads throwing without pause in 5 of 24 runs on
	 * .NET 10 (inside the runtime's GC), never in 24 runs after this */
	(void)info_SetEventMask2(ct.info, 0, 0);
	usleep(DETACH_QUIET_US);
	hr = info_RequestProfilerDetach(ct.info, DETACH_WAIT_MS);
	if (FAILED(hr)) /* tracing goes on */
		(void)ct_set_event_mask();
	else {
		atomic_store(&detaching, true);
		t->in_callback++;
		ct_thread_lock(t);
		ct_stop(t, EV_RUNTIME_DETACH);
		ct_thread_unlock(t);
		t->in_callback--;
		hr = CORPROF_E_PROFILER_DETACHING;
	}
	pthread_mutex_unlock(&detach_lock);
	return hr;
}

/* The runtime is about to unload us: forget this attach, so that the next
 * one starts anew (the library stays mapped: -z nodelete).  No callback
 * runs any more (the runtime waited for them).  The trace generation moves
 * on: what each thread kept of this trace (its spans, its families' state)
 * is forgotten now if its lock is free, else when the thread is next seen.
 * The pins of live exceptions cannot be released (every Info call fails
 * while detaching); at most CT_PINS_MAX a thread stay pinned. */
HRESULT on_ProfilerDetachSucceeded(struct ct_thread *t)
{
	pthread_mutex_lock(&detach_lock);
	ct_com_set_detach_handler(NULL);
	ct_handoff_reset();
	ct_families_trace_end();
	config_done(&ct.cfg);
	free(ct.program);
	ct.program = NULL;
	ct.info = NULL; /* invalid now; the runtime owns it */
	free(client_data);
	client_data = NULL;
	client_len = 0;
	atomic_store(&ct.shut_down, false);
	atomic_store(&detaching, false);
	pthread_mutex_unlock(&detach_lock);
	return S_OK;
}
