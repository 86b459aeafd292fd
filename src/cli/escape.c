/* SPDX-License-Identifier: MIT */
/* Record text made safe for a terminal, as strace prints strings: C escapes
 * for the common controls, \xHH for every other byte that is a control
 * character (C0, DEL, C1), a character that reorders or breaks lines
 * (bidi overrides, U+2028/9) or not part of valid UTF-8.  Backslash
 * doubles, so an escape in the output always means an escape. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/escape.h"

/* Length of the valid UTF-8 sequence at S (at most N bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0; /* overlong, out of range, or a surrogate */
	*cp = c;
	return len;
}

/* Is code point C one to show escaped although it is valid? */
static bool unsafe_char(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f ||
	       c == 0x061c;
}

/* Write the N bytes at S to F, escaped. */
void esc_fwrite(const char *s, size_t n, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t run = i;
		uint32_t c = 0;
		size_t len;

		/* copy the longest run of safe characters in one write */
		while (run < n && (len = utf8_len(p + run, n - run, &c)) && !unsafe_char(c) && c != '\\')
			run += len;
		if (run > i) {
			fwrite(p + i, 1, run - i, f);
			i = run;
			continue;
		}
		len = utf8_len(p + i, n - i, &c);
		switch (len == 1 ? c : 0x100) {
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '\v': fputs("\\v", f); break;
		case '\f': fputs("\\f", f); break;
		case 0x1b: fputs("\\e", f); break;
		default:
			/* a byte of invalid UTF-8, or every byte of an unsafe character */
			for (size_t k = 0; k < (len ? len : 1); k++)
				fprintf(f, "\\x%02x", p[i + k]);
			break;
		}
		i += len ? len : 1;
	}
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
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	if (!s || !(f = open_memstream(&buf, &size)))
		return NULL;
	esc_fputs(s, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
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
