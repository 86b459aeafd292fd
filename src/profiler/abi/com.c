/* SPDX-License-Identifier: MIT */
/*
 * COM plumbing: the IIDs, DllGetClassObject (the one exported symbol), the
 * class factory, and IUnknown for the callback object.  The callback object
 * is a process-wide singleton; its lifetime is the process.
 */
#include <string.h>

#include "profiler/abi/corprof.h"
#include "common/util.h"

#define G(a, b, c, d0, d1, d2, d3, d4, d5, d6, d7) \
	{ a, b, c, { d0, d1, d2, d3, d4, d5, d6, d7 } }

const GUID IID_IUnknown = G(0x00000000, 0x0000, 0x0000, 0xC0, 0, 0, 0, 0, 0, 0, 0x46);
const GUID IID_IClassFactory = G(0x00000001, 0x0000, 0x0000, 0xC0, 0, 0, 0, 0, 0, 0, 0x46);
const GUID IID_ICorProfilerCallback[12] = {
	[1] = G(0x176FBED1, 0xA55C, 0x4796, 0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7),
	[2] = G(0x8A8CC829, 0xCCF2, 0x49FE, 0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A),
	[3] = G(0x4FD2ED52, 0x7731, 0x4B8D, 0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5),
	[4] = G(0x7B63B2E3, 0x107D, 0x4D48, 0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2),
	[5] = G(0x8DFBA405, 0x8C9F, 0x45F8, 0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5),
	[6] = G(0xFC13DF4B, 0x4448, 0x4F4F, 0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36),
	[7] = G(0xF76A2DBA, 0x1D52, 0x4539, 0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3),
	[8] = G(0x5BED9B15, 0xC079, 0x4D47, 0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0),
	[9] = G(0x27583EC3, 0xC8F5, 0x482F, 0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A),
	[10] = G(0xCEC5B60E, 0xC69C, 0x495F, 0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB),
	[11] = G(0x42350846, 0xAAED, 0x47F7, 0xB1, 0x28, 0xFD, 0x0C, 0x98, 0x88, 0x1C, 0xDE),
};
const GUID IID_ICorProfilerInfo[16] = {
	[1] = G(0x28B5557D, 0x3F3F, 0x48B4, 0x90, 0xB2, 0x5F, 0x9E, 0xEA, 0x2F, 0x6C, 0x48),
	[2] = G(0xCC0935CD, 0xA518, 0x487D, 0xB0, 0xBB, 0xA9, 0x32, 0x14, 0xE6, 0x54, 0x78),
	[3] = G(0xB555ED4F, 0x452A, 0x4E54, 0x8B, 0x39, 0xB5, 0x36, 0x0B, 0xAD, 0x32, 0xA0),
	[4] = G(0x0D8FDCAA, 0x6257, 0x47BF, 0xB1, 0xBF, 0x94, 0xDA, 0xC8, 0x84, 0x66, 0xEE),
	[5] = G(0x07602928, 0xCE38, 0x4B83, 0x81, 0xE7, 0x74, 0xAD, 0xAF, 0x78, 0x12, 0x14),
	[6] = G(0xF30A070D, 0xBFFB, 0x46A7, 0xB1, 0xD8, 0x87, 0x81, 0xEF, 0x7B, 0x69, 0x8A),
	[7] = G(0x9AEECC0D, 0x63E0, 0x4187, 0x8C, 0x00, 0xE3, 0x12, 0xF5, 0x03, 0xF6, 0x63),
	[8] = G(0xC5AC80A6, 0x782E, 0x4716, 0x80, 0x44, 0x39, 0x59, 0x8C, 0x60, 0xCF, 0xBF),
	[9] = G(0x008170DB, 0xF8CC, 0x4796, 0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12),
	[10] = G(0x2F1B5152, 0xC869, 0x40C9, 0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20),
	[11] = G(0x06398876, 0x8987, 0x4154, 0xB6, 0x21, 0x40, 0xA0, 0x0D, 0x6E, 0x4D, 0x04),
	[12] = G(0x27B24CCD, 0x1CB1, 0x47C5, 0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59),
	[13] = G(0x6E6C7EE2, 0x0701, 0x4EC2, 0x9D, 0x29, 0x2E, 0x87, 0x33, 0xB6, 0x69, 0x34),
	[14] = G(0xF460E352, 0xD76D, 0x4FE9, 0x83, 0x5F, 0xF6, 0xAF, 0x9D, 0x6E, 0x86, 0x2D),
	[15] = G(0xB446462D, 0xBD22, 0x41DD, 0x87, 0x2D, 0xDC, 0x71, 0x4C, 0x49, 0xEB, 0x56),
};
const GUID IID_IMetaDataImport = G(0x7DAC8207, 0xD3AE, 0x4C75, 0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44);
/* {94D19DC5-3374-47C3-9729-75E330DECA23}: clrtrace's own CLSID */
const GUID CLSID_clrtrace = G(0x94D19DC5, 0x3374, 0x47C3, 0x97, 0x29, 0x75, 0xE3, 0x30, 0xDE, 0xCA, 0x23);
/* the same profiler, asking to be loaded as a notification profiler */
const GUID CLSID_clrtrace_notification = G(0x94D19DC5, 0x3374, 0x47C3, 0x97, 0x29, 0x75, 0xE3, 0x30, 0xDE, 0xCA, 0x24);
bool ct_notification_clsid;
/* asked for by `clrtrace detach`: not a profiler to load, but a request to
 * the copy already loaded from this file (the runtime loads the library and
 * asks for the class before it checks for a main profiler) */
const GUID CLSID_clrtrace_detach = G(0x94D19DC5, 0x3374, 0x47C3, 0x97, 0x29, 0x75, 0xE3, 0x30, 0xDE, 0xCA, 0x25);
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
