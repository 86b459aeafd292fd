/* SPDX-License-Identifier: MIT */
/*
 * COM plumbing: clrtrace's CLSIDs, DllGetClassObject (the one exported symbol), the
 * class factory, and IUnknown for the callback object.  The callback object
 * is a process-wide singleton; its lifetime is the process.
 */
#include <string.h>

#include "profiler/abi/corprof.h"
#include "common/util.h"

/* {94D19DC5-3374-47C3-9729-75E330DECA23}: clrtrace's own CLSID */
const GUID CLSID_clrtrace = CT_GUID(0x94D19DC5, 0x3374, 0x47C3, 0x97, 0x29, 0x75, 0xE3, 0x30, 0xDE, 0xCA, 0x23);
/* the same profiler, asking to be loaded as a notification profiler */
const GUID CLSID_clrtrace_notification = CT_GUID(0x94D19DC5, 0x3374, 0x47C3, 0x97, 0x29, 0x75, 0xE3, 0x30, 0xDE, 0xCA, 0x24);
bool ct_notification_clsid;
/* asked for by `clrtrace detach`: not a profiler to load, but a request to
 * the copy already loaded from this file (the runtime loads the library and
 * asks for the class before it checks for a main profiler) */
const GUID CLSID_clrtrace_detach = CT_GUID(0x94D19DC5, 0x3374, 0x47C3, 0x97, 0x29, 0x75, 0xE3, 0x30, 0xDE, 0xCA, 0x25);
static HRESULT (*detach_handler)(void);

/* What answers a detach request (NULL: none, nothing to detach). */
void ct_com_set_detach_handler(HRESULT (*fn)(void))
{
	__atomic_store_n(&detach_handler, fn, __ATOMIC_RELEASE);
}

/* Compare two GUIDs as their 16 bytes. */
int guid_equal(const GUID *a, const GUID *b)
{
	return memcmp(a, b, sizeof(GUID)) == 0;
}

extern com_object ct_callback_object; /* callbacks.c */

/* IUnknown::QueryInterface of the callback: one object for every IID. */
HRESULT ct_callback_query_interface(com_object *self, const GUID *iid, void **out);
HRESULT ct_callback_query_interface(com_object *self, const GUID *iid, void **out)
{
	if (!out)
		return E_POINTER;
	if (guid_equal(iid, &IID_IUnknown))
		goto yes;
	for (int i = 1; i <= 11; i++)
		if (guid_equal(iid, &IID_ICorProfilerCallback[i]))
			goto yes;
	*out = NULL;
	return E_NOINTERFACE;
yes:
	*out = self;
	return S_OK;
}

/* AddRef/Release: the object lives as long as the process. */
ULONG ct_callback_addref(com_object *self);
ULONG ct_callback_addref(com_object *self)
{
	return 2;
}

ULONG ct_callback_release(com_object *self);
ULONG ct_callback_release(com_object *self)
{
	return 1;
}

static HRESULT factory_query_interface(com_object *self, const GUID *iid, void **out)
{
	if (!out)
		return E_POINTER;
	if (guid_equal(iid, &IID_IUnknown) || guid_equal(iid, &IID_IClassFactory)) {
		*out = self;
		return S_OK;
	}
	*out = NULL;
	return E_NOINTERFACE;
}

static ULONG factory_addref(com_object *self)
{
	return 2;
}

static ULONG factory_release(com_object *self)
{
	return 1;
}

/* IClassFactory::CreateInstance: hand out the callback object. */
static HRESULT factory_create_instance(com_object *self, com_object *outer, const GUID *iid, void **out)
{
	if (!out)
		return E_POINTER;
	*out = NULL;
	if (outer)
		return CLASS_E_NOAGGREGATION;
	return ct_callback_query_interface(&ct_callback_object, iid, out);
}

static HRESULT factory_lock_server(com_object *self, BOOL lock)
{
	return S_OK;
}

static void *const factory_vtbl[] = {
	(void *)factory_query_interface,
	(void *)factory_addref,
	(void *)factory_release,
	(void *)factory_create_instance,
	(void *)factory_lock_server,
};

static com_object factory = { factory_vtbl };

/* The runtime's entry point into the library. */
_public_ HRESULT DllGetClassObject(const GUID *clsid, const GUID *iid, void **out);
_public_ HRESULT DllGetClassObject(const GUID *clsid, const GUID *iid, void **out)
{
	if (!out)
		return E_POINTER;
	*out = NULL;
	if (clsid && guid_equal(clsid, &CLSID_clrtrace_detach)) {
		HRESULT (*fn)(void) = __atomic_load_n(&detach_handler, __ATOMIC_ACQUIRE);

		/* never a class: the runtime's answer to the attach is ours */
		return fn ? fn() : CORPROF_E_PROFILER_NOT_YET_INITIALIZED;
	}
	if (!clsid || (!guid_equal(clsid, &CLSID_clrtrace) && !guid_equal(clsid, &CLSID_clrtrace_notification)))
		return CLASS_E_CLASSNOTAVAILABLE;
	/* LoadAsNotificationOnly, next, answers by it */
	ct_notification_clsid = guid_equal(clsid, &CLSID_clrtrace_notification);
	return factory_query_interface(&factory, iid, out);
}
