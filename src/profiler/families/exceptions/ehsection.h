/* SPDX-License-Identifier: MIT */
/*
 * The exception clauses of an IL method body (ECMA-335 II.25.4) and the
 * questions the filter verdicts ask of them: pure C, no runtime.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Clause kinds (CorExceptionFlag); a plain typed catch is 0. */
#define EH_CLAUSE_FILTER 0x1
#define EH_CLAUSE_FINALLY 0x2
#define EH_CLAUSE_FAULT 0x4

struct eh_clause {
	uint32_t flags;
	uint32_t try_off, try_len;
	uint32_t handler_off, handler_len;
	uint32_t extra; /* class token, or the filter's IL offset */
};

/* One entry of an IL-to-native map (COR_DEBUG_IL_TO_NATIVE_MAP). */
struct il_map_entry {
	uint32_t il;           /* IL offset, or one of the special values below */
	uint32_t native_start; /* offsets into the method's native code */
	uint32_t native_end;
};
#define IL_NO_MAPPING 0xffffffffu
#define IL_PROLOG 0xfffffffeu
#define IL_EPILOG 0xfffffffdu

/* Parse the clauses of the method body BODY (LEN bytes, header first) into
 * a malloc'd array *OUT of *N (NULL, 0 when it has none).  Returns 0, or
 * -EBADMSG for a malformed or truncated body, -ENOMEM. */
int eh_parse(const uint8_t *body, size_t len, struct eh_clause **out, size_t *n);

/* Could a plain catch take an exception that a filter of this method
 * declined?  True when a typed catch comes after a filter clause in the
 * table, its try block holds the filter's (so covers every throw site
 * the filter covers), and MAY_TAKE(its class token, UD) says its type may
 * match the exception's (MAY_TAKE NULL: any type may). */
bool eh_catch_after_filter(const struct eh_clause *c, size_t n, bool (*may_take)(uint32_t token, void *ud),
			   void *ud);

/* The innermost catch or filter clause whose handler holds IL offset IL,
 * or -1. */
ssize_t eh_handler_at(const struct eh_clause *c, size_t n, uint32_t il);

/* Does the handler (of any kind) that holds IL offset OUTER, the innermost
 * one, also hold IL offset INNER?  1 or 0, or -ENOENT when no handler
 * holds OUTER. */
int eh_within_handler(const struct eh_clause *c, size_t n, uint32_t outer, uint32_t inner);

/* How many finally and fault clauses have a try block that holds IL offset
 * IL (the handlers that run when an exception leaves the method there). */
unsigned eh_finallys_covering(const struct eh_clause *c, size_t n, uint32_t il);

/* The IL offset of the code at native offset NATIVE: the entry holding it,
 * or, when that is a prolog or unmapped (a funclet starts with its
 * prolog), the first mapped entry after it.  0, or -ENOENT. */
int il_offset_at(const struct il_map_entry *m, size_t n, uint32_t native, uint32_t *il);
