/* SPDX-License-Identifier: MIT */
/*
 * Which open error a thrown object is, whatever a compacting GC did to its
 * address.  The machine's errors table keeps, per open error, a weak
 * handle made at the object's first throw (here, inside ExceptionThrown,
 * where the object reference is valid: never in the filter- or
 * catcher-enter callbacks, dotnet/runtime#132462), and destroys it through
 * exm_emitter.handle_free when the error's fate is written.  At each later
 * throw the handles of the open errors of the thrown object's type (a
 * ClassID does not move) are resolved and compared with the ObjectID.  A
 * weak handle does not keep the object alive: one collected is an error
 * that cannot be thrown again.  Without ICorProfilerInfo13, or when a
 * handle cannot be made, the machine falls back on the address (its
 * exception.error says "identity": "address").
 */
#include <stdatomic.h>

#include "profiler/families/exceptions/ident.h"
#include "profiler/abi/info.h"

#define COR_PRF_HANDLE_TYPE_WEAK 1

static atomic_bool exiting;

bool ct_ident_wanted(void)
{
	return ct.info && ct.info_version >= 13;
}

/* The object HANDLE holds now, 0: collected (or the runtime said no). */
static uint64_t resolve(uint64_t handle)
{
	ObjectID obj = 0;

	if (FAILED(info_GetObjectIDFromHandle(ct.info, (uintptr_t)handle, &obj)))
		return 0;
	return obj;
}

void ct_ident_thrown(ObjectID obj, struct exm_input *in)
{
	uintptr_t h = 0;
	ClassID inner_cls = 0;

	in->handle = in->inner_handle = 0;
	in->handle_new = in->inner_checked = false;
	if (!obj || !in->type_id || in->muted || !ct_ident_wanted())
		return;
	/* its InnerException: is it an open error's object (a wrapper)? */
	if (in->inner && SUCCEEDED(info_GetClassFromObject(ct.info, in->inner, &inner_cls)) && inner_cls) {
		in->inner_handle = exm_errors_identify(inner_cls, in->inner, true, resolve);
		in->inner_checked = true;
	}
	in->handle = exm_errors_identify(in->type_id, obj, in->traced, resolve);
	if (in->handle)
		return;
	if (FAILED(info_CreateHandle(ct.info, obj, COR_PRF_HANDLE_TYPE_WEAK, &h)) || !h)
		return;
	in->handle = h;
	in->handle_new = true;
}

void ct_ident_free(void *ud, uint64_t handle)
{
	(void)ud;
	if (handle && ct.info && !atomic_load(&exiting))
		(void)info_DestroyHandle(ct.info, (uintptr_t)handle);
}

void ct_ident_exiting(void)
{
	atomic_store(&exiting, true);
}
