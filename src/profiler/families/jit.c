/* SPDX-License-Identifier: MIT */
/* JIT compilations as spans (category jit, off by default), and as the
 * records of category startup (startup.c). */
#include "profiler/families/handlers.h"
#include "profiler/families/startup.h"

HRESULT on_JITCompilationStarted(struct ct_thread *t, FunctionID id, BOOL safe)
{
	if (ct_wants(EV_JIT_COMPILE)) {
		JW_FIELDS(f, 1);

		jwf_str(&f, "function", ct_function_name(id));
		ct_emit(t, EV_JIT_COMPILE, PH_BEGIN, id, &f);
	}
	ct_startup_jit_begin(t, id);
	return S_OK;
}

HRESULT on_JITCompilationFinished(struct ct_thread *t, FunctionID id, HRESULT hr, BOOL safe)
{
	if (ct_wants(EV_JIT_COMPILE)) {
		JW_FIELDS(f, 2);

		jwf_str(&f, "function", ct_function_name(id));
		jwf_hr(&f, "hr", (uint32_t)hr);
		ct_emit(t, EV_JIT_COMPILE, PH_END, id, &f);
	}
	ct_startup_jit_end(t, id, hr, false);
	return S_OK;
}

/* Dynamic methods and IL stubs: counted by the runtime's JitInfo, so by
 * category startup too (the jit.compile spans stay as they were). */
HRESULT on_DynamicMethodJITCompilationStarted(struct ct_thread *t, FunctionID id, BOOL safe, const uint8_t *il,
					      ULONG cb)
{
	ct_startup_jit_begin(t, id);
	return S_OK;
}

HRESULT on_DynamicMethodJITCompilationFinished(struct ct_thread *t, FunctionID id, HRESULT hr, BOOL safe)
{
	ct_startup_jit_end(t, id, hr, true);
	return S_OK;
}

const struct ct_family ct_family_jit = { .name = "jit" };
