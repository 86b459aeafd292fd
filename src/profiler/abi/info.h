/* SPDX-License-Identifier: MIT */
/* The runtime methods clrtrace calls, as C functions, from info.def:
 * info_GetClassFromObject(ct.info, obj, &cls), mdi_GetMethodProps(mdi, ...). */
#pragma once

#include <stdbool.h>

#include "profiler/abi/corprof.h"

/* The function type of each method, obj_name_fn. */
#define COM(obj, slot, iface, name, ret, params, args) typedef ret(*obj##_##name##_fn) params;
#include "profiler/abi/info.def"
#undef COM

/* obj_name(self, ...): call vtable slot SLOT of self. */
#define COM(obj, slot, iface, name, ret, params, args)             \
	static inline ret obj##_##name params                      \
	{                                                          \
		return ((obj##_##name##_fn)self->vtbl[slot])args;  \
	}
#include "profiler/abi/info.def"
#undef COM

/* Did a method that writes a name into a caller's buffer say how long the
 * name is, even if it did not fit?  (utf16_name_retry's ANSWERED) */
static inline bool com_name_answered(HRESULT hr)
{
	return SUCCEEDED(hr) || hr == ERROR_INSUFFICIENT_BUFFER_HR;
}
