/* SPDX-License-Identifier: MIT */
/*
 * An exception-monitoring profiler that does nothing: it asks for
 * COR_PRF_MONITOR_EXCEPTIONS and returns S_OK from every callback at once.
 * bench/filter-load.sh runs a program under it to tell the crash rate that
 * dotnet/runtime#132462 leaves to any such profiler from what clrtrace's own
 * callbacks add.  NULLPROF_SPIN_US=N with NULLPROF_SPIN_SLOT=S busy-waits N µs
 * in vtable slot S (57 ExceptionSearchFilterEnter, 58 ...FilterLeave,
 * 66 ExceptionCatcherEnter; see src/profiler/abi/callbacks.def) to show what work in
 * that one callback does.  NULLPROF_MASK=BITS asks for that event mask
 * instead (COR_PRF_MONITOR_*, hexadecimal; 0 for none: bench/startup.sh
 * measures what loading any profiler costs the runtime).  Loaded with
 * clrtrace's CLSID:
 *   CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER={94D19DC5-3374-47C3-9729-75E330DECA23}
 *   CORECLR_PROFILER_PATH=.../null-profiler.so PROGRAM
 */
#include <stdlib.h>

#include "profiler/abi/info.h"
#include "common/util.h"

HRESULT ct_callback_query_interface(com_object *self, const GUID *iid, void **out);
ULONG ct_callback_addref(com_object *self);
ULONG ct_callback_release(com_object *self);

static int spin_slot = -1;
static uint64_t spin_ns;

/* Every callback but Initialize: arguments ignored (the caller pops them). */
static HRESULT nothing(void)
{
	return S_OK;
}

/* Busy-wait spin_ns: work without locks, I/O or allocation. */
static HRESULT spin(void)
{
	uint64_t end = mono_ns() + spin_ns;

	while (mono_ns() < end)
		;
	return S_OK;
}

/* Ask for the exception callbacks and nothing else. */
static HRESULT initialize(com_object *self, com_object *info_unk)
{
	com_object *info = NULL;
	const char *slot = getenv("NULLPROF_SPIN_SLOT"), *us = getenv("NULLPROF_SPIN_US");
	const char *mask = getenv("NULLPROF_MASK");

	if (FAILED(info_QueryInterface(info_unk, &IID_ICorProfilerInfo[5], (void **)&info)) || !info)
		return E_FAIL;
	if (slot && us) {
		spin_slot = atoi(slot);
		spin_ns = strtoull(us, NULL, 10) * 1000u;
	}
	return info_SetEventMask2(info, mask ? (DWORD)strtoul(mask, NULL, 16) : COR_PRF_MONITOR_EXCEPTIONS, 0);
}

static void *callback_vtbl[98];
com_object ct_callback_object = { callback_vtbl };

__attribute__((constructor)) static void vtbl_init(void)
{
	const char *slot = getenv("NULLPROF_SPIN_SLOT");
	int s = slot ? atoi(slot) : -1;

	callback_vtbl[0] = (void *)ct_callback_query_interface;
	callback_vtbl[1] = (void *)ct_callback_addref;
	callback_vtbl[2] = (void *)ct_callback_release;
	callback_vtbl[3] = (void *)initialize;
	for (int i = 4; i < 98; i++)
		callback_vtbl[i] = i == s && getenv("NULLPROF_SPIN_US") ? (void *)spin : (void *)nothing;
}
