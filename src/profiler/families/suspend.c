/* SPDX-License-Identifier: MIT */
/* Runtime suspension and resumption spans, and per-thread suspend/resume. */
#include "profiler/families/handlers.h"

static const char *const suspend_reasons[] = {
	[COR_PRF_SUSPEND_OTHER] = "other",
	[COR_PRF_SUSPEND_FOR_GC] = "gc",
	[COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN] = "appdomain_shutdown",
	[COR_PRF_SUSPEND_FOR_CODE_PITCHING] = "code_pitching",
	[COR_PRF_SUSPEND_FOR_SHUTDOWN] = "shutdown",
	[5] = "other",
	[COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER] = "debugger",
	[COR_PRF_SUSPEND_FOR_GC_PREP] = "gc_prep",
	[COR_PRF_SUSPEND_FOR_REJIT] = "rejit",
	[COR_PRF_SUSPEND_FOR_PROFILER] = "profiler",
};

HRESULT on_RuntimeSuspendStarted(struct ct_thread *t, uint32_t reason)
{
	JW_FIELDS(f, 1);

	if (!ct_wants(EV_RUNTIME_SUSPEND))
		return S_OK;
	jwf_str(&f, "reason", reason < ELEMENTSOF(suspend_reasons) ? suspend_reasons[reason] : "other");
	ct_emit(t, EV_RUNTIME_SUSPEND, PH_BEGIN, 0, &f);
	return S_OK;
}

/* The end of a runtime suspension, ABORTED or not. */
static void suspend_end(struct ct_thread *t, bool aborted)
{
	JW_FIELDS(f, 1);

	jwf_bool(&f, "aborted", aborted);
	ct_emit(t, EV_RUNTIME_SUSPEND, PH_END, 0, &f);
}

HRESULT on_RuntimeSuspendFinished(struct ct_thread *t)
{
	if (ct_wants(EV_RUNTIME_SUSPEND))
		suspend_end(t, false);
	return S_OK;
}

HRESULT on_RuntimeSuspendAborted(struct ct_thread *t)
{
	if (ct_wants(EV_RUNTIME_SUSPEND))
		suspend_end(t, true);
	return S_OK;
}

HRESULT on_RuntimeResumeStarted(struct ct_thread *t)
{
	if (ct_wants(EV_RUNTIME_RESUME))
		ct_emit(t, EV_RUNTIME_RESUME, PH_BEGIN, 0, NULL);
	return S_OK;
}

HRESULT on_RuntimeResumeFinished(struct ct_thread *t)
{
	if (ct_wants(EV_RUNTIME_RESUME))
		ct_emit(t, EV_RUNTIME_RESUME, PH_END, 0, NULL);
	return S_OK;
}

/* EV about the managed thread ID: {"target":{"id":ID}}. */
static void thread_target(struct ct_thread *t, enum ct_event ev, ThreadID id)
{
	JW_FIELDS(target, 1);
	JW_FIELDS(f, 1);

	jwf_hex(&target, "id", id);
	jwf_obj(&f, "target", &target);
	ct_emit(t, ev, PH_INSTANT, 0, &f);
}

HRESULT on_RuntimeThreadSuspended(struct ct_thread *t, ThreadID id)
{
	if (ct_wants(EV_THREAD_SUSPEND))
		thread_target(t, EV_THREAD_SUSPEND, id);
	return S_OK;
}

HRESULT on_RuntimeThreadResumed(struct ct_thread *t, ThreadID id)
{
	if (ct_wants(EV_THREAD_RESUME))
		thread_target(t, EV_THREAD_RESUME, id);
	return S_OK;
}

const struct ct_family ct_family_suspend = { .name = "suspend" };
