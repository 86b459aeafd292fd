/* SPDX-License-Identifier: MIT */
/* JIT compilations as spans (category jit, off by default). */
#include "profiler/families/handlers.h"

HRESULT on_JITCompilationStarted(struct ct_thread *t, FunctionID id, BOOL safe)
{
	if (ct_wants(EV_JIT_COMPILE))
		ct_emit_json(t, EV_JIT_COMPILE, PH_BEGIN, id, json_pack("{s:s}", "function", ct_function_name(id)));
	return S_OK;
}

HRESULT on_JITCompilationFinished(struct ct_thread *t, FunctionID id, HRESULT hr, BOOL safe)
{
	if (ct_wants(EV_JIT_COMPILE))
		ct_emit_json(t, EV_JIT_COMPILE, PH_END, id,
			json_pack("{s:s,s:o}", "function", ct_function_name(id), "hr", ct_json_hr(hr)));
	return S_OK;
}

const struct ct_family ct_family_jit = { .name = "jit" };
