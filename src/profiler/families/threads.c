/* SPDX-License-Identifier: MIT */
/* Managed thread lifetime: create, OS thread assignment, name, destroy. */
#include "profiler/families/handlers.h"
#include "common/utf16.h"
#include "profiler/core/thread-ident.h"

/* EV about the managed thread ID (its OS thread OS_TID when > 0, its NAME
 * when HAS_NAME). */
static void thread_record(struct ct_thread *t, enum ct_event ev, ThreadID id, int os_tid, bool has_name,
			  const char *name)
{
	JW_FIELDS(target, 3);
	JW_FIELDS(f, 1);

	jwf_hex(&target, "id", id);
	if (os_tid > 0)
		jwf_int(&target, "os_tid", os_tid);
	if (has_name)
		jwf_str(&target, "name", name);
	jwf_obj(&f, "target", &target);
	ct_emit(t, ev, PH_INSTANT, 0, &f);
}

HRESULT on_ThreadCreated(struct ct_thread *t, ThreadID id)
{
	if (ct_wants(EV_THREAD_CREATE))
		thread_record(t, EV_THREAD_CREATE, id, ct_os_tid(id), false, NULL);
	return S_OK;
}

HRESULT on_ThreadDestroyed(struct ct_thread *t, ThreadID id)
{
	if (id == t->managed_id) /* exceptions still in flight end with it */
		ct_families_thread_end(t);
	if (ct_wants(EV_THREAD_DESTROY))
		thread_record(t, EV_THREAD_DESTROY, id, ct_os_tid(id), false, NULL);
	ct_thread_name_set(id, NULL); /* the ThreadID may be reused */
	return S_OK;
}

HRESULT on_ThreadAssignedToOSThread(struct ct_thread *t, ThreadID id, DWORD os_tid)
{
	if ((int)os_tid == t->tid)
		t->managed_id = id;
	if (ct_wants(EV_THREAD_OS_ASSIGN))
		thread_record(t, EV_THREAD_OS_ASSIGN, id, (int)os_tid, false, NULL);
	return S_OK;
}

HRESULT on_ThreadNameChanged(struct ct_thread *t, ThreadID id, ULONG cch, WCHAR *name)
{
	char *n = name ? utf16_to_utf8((uint16_t *)name, cch) : NULL;

	/* the records of that thread carry it from their next one */
	ct_thread_name_set(id, n);
	if (ct_wants(EV_THREAD_NAME))
		thread_record(t, EV_THREAD_NAME, id, ct_os_tid(id), true, n);
	free(n);
	return S_OK;
}

const struct ct_family ct_family_threads = { .name = "threads" };
