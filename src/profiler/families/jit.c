/* SPDX-License-Identifier: MIT */
/* JIT compilations as spans (category jit, off by default). */
#include "profiler/families/handlers.h"

HRESULT on_JITCompilationStarted(struct ct_thread *t, FunctionID id, BOOL safe)
{
	JW_FIELDS(f, 1);

	if (!ct_wants(EV_JIT_COMPILE))
		return S_OK;
	jwf_str(&f, "function", ct_function_name(id));
	ct_emit(t, EV_JIT_COMPILE, PH_BEGIN, id, &f);
	return S_OK;
}

HRESULT on_JITCompilationFinished(struct ct_thread *t, FunctionID id, HRESULT hr, BOOL safe)
{
	JW_FIELDS(f, 2);

	if (!ct_wants(EV_JIT_COMPILE))
		return S_OK;
	jwf_str(&f, "function", ct_function_name(id));
	jwf_hr(&f, "hr", (uint32_t)hr);
	ct_emit(t, EV_JIT_COMPILE, PH_END, id, &f);
	return S_OK;
}

const struct ct_family ct_family_jit = { .name = "jit" };
