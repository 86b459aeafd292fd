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
	if (ct_wants(EV_RUNTIME_SUSPEND))
		ct_emit_json(t, EV_RUNTIME_SUSPEND, PH_BEGIN, 0,
			json_pack("{s:s}", "reason", reason < ELEMENTSOF(suspend_reasons) ? suspend_reasons[reason] : "other"));
	return S_OK;
}

HRESULT on_RuntimeSuspendFinished(struct ct_thread *t)
{
	if (ct_wants(EV_RUNTIME_SUSPEND))
		ct_emit_json(t, EV_RUNTIME_SUSPEND, PH_END, 0, json_pack("{s:b}", "aborted", 0));
	return S_OK;
}

HRESULT on_RuntimeSuspendAborted(struct ct_thread *t)
{
	if (ct_wants(EV_RUNTIME_SUSPEND))
		ct_emit_json(t, EV_RUNTIME_SUSPEND, PH_END, 0, json_pack("{s:b}", "aborted", 1));
	return S_OK;
}

HRESULT on_RuntimeResumeStarted(struct ct_thread *t)
{
	if (ct_wants(EV_RUNTIME_RESUME))
		ct_emit_json(t, EV_RUNTIME_RESUME, PH_BEGIN, 0, NULL);
	return S_OK;
}

HRESULT on_RuntimeResumeFinished(struct ct_thread *t)
{
	if (ct_wants(EV_RUNTIME_RESUME))
		ct_emit_json(t, EV_RUNTIME_RESUME, PH_END, 0, NULL);
	return S_OK;
}

HRESULT on_RuntimeThreadSuspended(struct ct_thread *t, ThreadID id)
{
	if (ct_wants(EV_THREAD_SUSPEND))
		ct_emit_json(t, EV_THREAD_SUSPEND, PH_INSTANT, 0, json_pack("{s:{s:o}}", "target", "id", ct_json_id(id)));
	return S_OK;
}

HRESULT on_RuntimeThreadResumed(struct ct_thread *t, ThreadID id)
{
	if (ct_wants(EV_THREAD_RESUME))
		ct_emit_json(t, EV_THREAD_RESUME, PH_INSTANT, 0, json_pack("{s:{s:o}}", "target", "id", ct_json_id(id)));
	return S_OK;
}

const struct ct_family ct_family_suspend = { .name = "suspend" };
