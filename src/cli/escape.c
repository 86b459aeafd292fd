/* SPDX-License-Identifier: MIT */
/* Record text made safe for a terminal, as strace prints strings: the one
 * escaper (common/escape.c) in its ESC_RECORD form, over strings and JSON. */
#include <stdlib.h>
#include <string.h>

#include "cli/escape.h"
#include "common/escape.h"

/* Write the N bytes at S to F, escaped. */
void esc_fwrite(const char *s, size_t n, FILE *f)
{
	escape_fwrite(f, s, n, 0, ESC_RECORD);
}

/* Write the string S to F, escaped. */
void esc_fputs(const char *s, FILE *f)
{
	if (s)
		esc_fwrite(s, strlen(s), f);
}

/* The escaped copy of S (malloc'd). */
char *esc_strdup(const char *s)
{
	return escape_str(s, 0, ESC_RECORD);
}

/* A deep copy of J with every string value escaped. */
json_t *esc_json(json_t *j)
{
	json_t *copy, *v;
	const char *key;
	size_t i;

	switch (json_typeof(j)) {
	case JSON_STRING: {
		char *e = esc_strdup(json_string_value(j));

		copy = e ? json_string(e) : NULL;
		free(e);
		return copy;
	}
	case JSON_OBJECT:
		if (!(copy = json_object()))
			return NULL;
		json_object_foreach(j, key, v)
			if (json_object_set_new(copy, key, esc_json(v)) < 0) {
				json_decref(copy);
				return NULL;
			}
		return copy;
	case JSON_ARRAY:
		if (!(copy = json_array()))
			return NULL;
		json_array_foreach(j, i, v)
			if (json_array_append_new(copy, esc_json(v)) < 0) {
				json_decref(copy);
				return NULL;
			}
		return copy;
	default:
		return json_deep_copy(j);
	}
}
