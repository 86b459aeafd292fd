/* SPDX-License-Identifier: MIT */
/*
 * The tier of each JIT compile in startup.jit (category tiers), from the
 * runtime's own events: the profiling API's JIT callbacks say nothing of
 * it.
 *
 * An in-process EventPipe session (ICorProfilerInfo12) on the runtime's
 * provider, keyword JIT, level Verbose (at Informational the runtime
 * writes no MethodLoad event: measured on .NET 10): the runtime writes one
 * MethodLoadVerbose event at the end of each compile, on the compiling
 * thread, just before it calls JITCompilationFinished (vm/prestub.cpp,
 * JitCompileCodeLockedEventWrapper), and delivers it to
 * EventPipeEventDelivered synchronously.  Its MethodID is the MethodDesc,
 * which is the profiler's FunctionID; bits 7-9 of its MethodFlags are the
 * optimization tier (common/jit-tiers.def).  The handler keeps the last
 * (MethodID, tier) of the thread; startup.c's JITCompilationFinished takes
 * it when the FunctionID is the same.  The session opens in Initialize;
 * it makes the runtime enable its managed twin, NativeRuntimeEventSource,
 * which builds the metadata of its events by reflection: the category's
 * cost, off by default.  See DESIGN.md, "Compile tiers from the runtime's
 * events".
 */
#include <stdatomic.h>
#include <string.h>

#include "profiler/abi/info.h"
#include "profiler/families/startup-tier.h"

const WCHAR ct_startup_tier_provider[] = u"Microsoft-Windows-DotNETRuntime";
const size_t ct_startup_tier_provider_len = ELEMENTSOF(ct_startup_tier_provider);
#define KW_JIT 0x10ull
#define EV_METHOD_LOAD 141u	    /* MethodLoad (_V1, _V2) */
#define EV_METHOD_LOAD_VERBOSE 143u /* MethodLoadVerbose (_V1, _V2) */
#define FLAGS_OFF 32u		    /* MethodID, ModuleID, start: u64; size, token: u32 */
#define TIER_SHIFT 7u
#define TIER_MASK 0x7u

static EVENTPIPE_SESSION session;
static atomic_ulong events, matched;

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void ct_startup_tier_event(struct ct_thread *t, DWORD id, ULONG cb_data, const uint8_t *data)
{
	/* every version starts with the same 36 bytes, the flags last */
	if (!session || (id != EV_METHOD_LOAD && id != EV_METHOD_LOAD_VERBOSE) || !data || cb_data < FLAGS_OFF + 4)
		return;
	atomic_fetch_add_explicit(&events, 1, memory_order_relaxed);
	t->tier_fn = le64(data);
	t->tier = (uint8_t)(le32(data + FLAGS_OFF) >> TIER_SHIFT & TIER_MASK);
}

const char *ct_startup_tier_take(struct ct_thread *t, FunctionID fn)
{
	static const char *const names[TIER_MASK + 1] = {
#define JIT_TIER(value, name, runtime, background) [value] = name,
#include "common/jit-tiers.def"
#undef JIT_TIER
	};
	const char *name = NULL;

	if (t->tier_fn == fn && fn) {
		name = names[t->tier & TIER_MASK];
		atomic_fetch_add_explicit(&matched, 1, memory_order_relaxed);
	}
	t->tier_fn = 0;
	return name;
}

int ct_startup_tier_start(void)
{
	COR_PRF_EVENTPIPE_PROVIDER_CONFIG cfg[] = {
		{ ct_startup_tier_provider, KW_JIT, COR_PRF_EVENTPIPE_VERBOSE, NULL },
	};
	HRESULT hr;

	if (!ct_on(CAT_TIERS) || !ct_wants(EV_STARTUP_JIT))
		return 0;
	if (ct.info_version < 12) {
		ct_say_once("tier", "this runtime has no in-process EventPipe (ICorProfilerInfo12); no JIT tiers");
		return -ENOTSUP;
	}
	hr = info_EventPipeStartSession(ct.info, ELEMENTSOF(cfg), cfg, false, &session);
	if (FAILED(hr)) {
		session = 0;
		ct_say_once("tier", "the runtime refused the EventPipe session (0x%x); no JIT tiers", (unsigned)hr);
		return -EIO;
	}
	return 0;
}

void ct_startup_tier_stop(void)
{
	EVENTPIPE_SESSION s = session;

	session = 0;
	if (s)
		(void)info_EventPipeStopSession(ct.info, s);
}

void ct_startup_tier_totals(uint64_t *n_events, uint64_t *n_matched)
{
	*n_events = atomic_load(&events);
	*n_matched = atomic_load(&matched);
}
