/* SPDX-License-Identifier: MIT */
/* A record's method names in words (see record-names.h). */
#include <string.h>

#include "common/dotnet-names.h"
#include "common/record-names.h"

/* The caller of FN in REC's stack (see record-names.h). */
const char *dotnet_record_caller(json_t *rec, const char *fn)
{
	json_t *stack = json_object_get(rec, "stack"), *frame;
	size_t i;

	if (!fn)
		return NULL;
	json_array_foreach(stack, i, frame) {
		const char *f = json_string_value(json_object_get(frame, "function"));

		if (f && strcmp(f, fn) == 0)
			return json_string_value(json_object_get(json_array_get(stack, i + 1), "function"));
	}
	return NULL;
}

/* FN said as view says it (see record-names.h). */
void dotnet_record_say(json_t *rec, const char *fn, struct strbuf *out)
{
	dotnet_marks(dotnet_name(fn, dotnet_record_caller(rec, fn), out), out);
}
