/* SPDX-License-Identifier: MIT */
/* Managed thread lifetime: create, OS thread assignment, name, destroy. */
#include "profiler/families/handlers.h"
#include "common/utf16.h"
#include "profiler/core/thread-ident.h"

/* {id, os_tid} of the managed thread a record is about. */
static json_t *target_json(ThreadID id, int os_tid)
{
	json_t *o = json_pack("{s:o}", "id", ct_json_id(id));

	if (os_tid > 0)
		json_object_set_new(o, "os_tid", json_integer(os_tid));
	return o;
}

HRESULT on_ThreadCreated(struct ct_thread *t, ThreadID id)
{
	if (ct_wants(EV_THREAD_CREATE))
		ct_emit_json(t, EV_THREAD_CREATE, PH_INSTANT, 0,
			json_pack("{s:o}", "target", target_json(id, ct_os_tid(id))));
	return S_OK;
}

HRESULT on_ThreadDestroyed(struct ct_thread *t, ThreadID id)
{
	if (id == t->managed_id) /* exceptions still in flight end with it */
		ct_families_thread_end(t);
	if (ct_wants(EV_THREAD_DESTROY))
		ct_emit_json(t, EV_THREAD_DESTROY, PH_INSTANT, 0,
			json_pack("{s:o}", "target", target_json(id, ct_os_tid(id))));
	ct_thread_name_set(id, NULL); /* the ThreadID may be reused */
	return S_OK;
}

HRESULT on_ThreadAssignedToOSThread(struct ct_thread *t, ThreadID id, DWORD os_tid)
{
	if ((int)os_tid == t->tid)
		t->managed_id = id;
	if (ct_wants(EV_THREAD_OS_ASSIGN))
		ct_emit_json(t, EV_THREAD_OS_ASSIGN, PH_INSTANT, 0,
			json_pack("{s:o}", "target", target_json(id, (int)os_tid)));
	return S_OK;
}

HRESULT on_ThreadNameChanged(struct ct_thread *t, ThreadID id, ULONG cch, WCHAR *name)
{
	char *n = name ? utf16_to_utf8((uint16_t *)name, cch) : NULL;

	/* the records of that thread carry it from their next one */
	ct_thread_name_set(id, n);
	if (!ct_wants(EV_THREAD_NAME)) {
		free(n);
		return S_OK;
	}
	json_t *target = target_json(id, ct_os_tid(id));
	json_object_set_new(target, "name", n ? json_string(n) : json_null());
	free(n);
	ct_emit_json(t, EV_THREAD_NAME, PH_INSTANT, 0, json_pack("{s:o}", "target", target));
	return S_OK;
}

const struct ct_family ct_family_threads = { .name = "threads" };
