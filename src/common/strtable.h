/* SPDX-License-Identifier: MIT */
/* Enum <-> string lookups from one table (systemd's DEFINE_STRING_TABLE_LOOKUP
 * is the model).  A table is `static const char *const NAME_table[_X_MAX]`
 * (or the NAME field of an array of structs); the macros define
 * NAME_to_string() and NAME_from_string() over it, so no hand loop repeats. */
#pragma once

#include <stddef.h>
#include <string.h>
#include <sys/types.h>

/* Index of S in TABLE (N entries, NULL holes skipped), or -1; S may be NULL. */
static inline ssize_t string_table_lookup(const char *const *table, size_t n, const char *s)
{
	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (table[i] && strcmp(table[i], s) == 0)
			return (ssize_t)i;
	return -1;
}

/* Same over the string FIELD_OFF bytes into each of N entries of SIZE bytes. */
static inline ssize_t string_table_lookup_field(const void *table, size_t n, size_t size,
						size_t field_off, const char *s)
{
	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *name = *(const char *const *)((const char *)table + i * size + field_off);

		if (name && strcmp(name, s) == 0)
			return (ssize_t)i;
	}
	return -1;
}

#define _STRTABLE_N(t) (sizeof(t) / sizeof((t)[0]))

/* type NAME_to_string(type i): NAME_table[i], NULL when out of range. */
#define _DEFINE_STRING_TABLE_TO_STRING(name, type, scope)                     \
	scope const char *name##_to_string(type i)                             \
	{                                                                      \
		if ((ssize_t)i < 0 || (size_t)i >= _STRTABLE_N(name##_table))  \
			return NULL;                                           \
		return name##_table[i];                                        \
	}

/* type NAME_from_string(const char *s): the index of s in TABLE, INVALID
 * if absent. */
#define _DEFINE_STRING_TABLE_FROM_STRING_OF(name, table, type, invalid, scope) \
	scope type name##_from_string(const char *s)                            \
	{                                                                       \
		ssize_t i = string_table_lookup(table, _STRTABLE_N(table), s);   \
		return i < 0 ? (invalid) : (type)i;                             \
	}
#define _DEFINE_STRING_TABLE_FROM_STRING(name, type, invalid, scope) \
	_DEFINE_STRING_TABLE_FROM_STRING_OF(name, name##_table, type, invalid, scope)

#define DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type) \
	_DEFINE_STRING_TABLE_TO_STRING(name, type, )
#define DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type, invalid) \
	_DEFINE_STRING_TABLE_FROM_STRING(name, type, invalid, )
/* The same over a table of another name (one other code shares). */
#define DEFINE_STRING_TABLE_FROM_STRING_OF(name, table, type, invalid) \
	_DEFINE_STRING_TABLE_FROM_STRING_OF(name, table, type, invalid, )
#define DEFINE_STRING_TABLE_LOOKUP(name, type, invalid)            \
	_DEFINE_STRING_TABLE_TO_STRING(name, type, )               \
	_DEFINE_STRING_TABLE_FROM_STRING(name, type, invalid, )
#define DEFINE_PRIVATE_STRING_TABLE_LOOKUP(name, type, invalid)               \
	_DEFINE_STRING_TABLE_TO_STRING(name, type, static _unused_strtable_)   \
	_DEFINE_STRING_TABLE_FROM_STRING(name, type, invalid, static _unused_strtable_)
#define _unused_strtable_ __attribute__((unused))

/* type FUNC(const char *s): the index of the entry of TABLE (an array of
 * structs) whose FIELD is s, INVALID if absent. */
#define DEFINE_STRING_TABLE_FIELD_FROM_STRING(func, type, table, field, invalid)             \
	type func(const char *s)                                                              \
	{                                                                                     \
		ssize_t i = string_table_lookup_field(table, _STRTABLE_N(table), sizeof((table)[0]), \
						      offsetof(__typeof__((table)[0]), field), s); \
		return i < 0 ? (invalid) : (type)i;                                           \
	}
