/* SPDX-License-Identifier: MIT */
/* Helpers for the common payload values (emit.h). */
#include <inttypes.h>
#include <stdio.h>

#include "profiler/core/emit.h"

/* "0x…" for ids that are pointers in the runtime. */
json_t *ct_json_id(uint64_t id)
{
	char buf[2 + 16 + 1];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, id);
	return json_string(buf);
}

/* "0x%08x" of an HRESULT. */
json_t *ct_json_hr(HRESULT hr)
{
	char buf[11];

	snprintf(buf, sizeof(buf), "0x%08x", (uint32_t)hr);
	return json_string(buf);
}
