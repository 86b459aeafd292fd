/* SPDX-License-Identifier: MIT */
/*
 * Reading the EH section of an IL method body (ECMA-335 II.25.4.5-6):
 * small and fat clause formats, several sections, every size checked
 * against the bytes there are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/families/exceptions/ehsection.h"

#define TINY_FORMAT 0x2
#define FAT_FORMAT 0x3
#define FAT_MORE_SECTS 0x8
#define SECT_EH_TABLE 0x1
#define SECT_FAT 0x40
#define SECT_MORE 0x80
#define SMALL_CLAUSE 12
#define FAT_CLAUSE 24

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd24(const uint8_t *p)
{
	return rd16(p) | (uint32_t)p[2] << 16;
}

static uint32_t rd32(const uint8_t *p)
{
	return rd24(p) | (uint32_t)p[3] << 24;
}

/* Append the COUNT clauses at P (small or fat) to *OUT. */
static int add_clauses(const uint8_t *p, size_t count, bool fat, struct eh_clause **out, size_t *n)
{
	struct eh_clause *v;

	if (!count)
		return 0;
	if (count > SIZE_MAX / sizeof(*v) - *n)
		return -ENOMEM;
	v = realloc(*out, (*n + count) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*out = v;
	for (size_t i = 0; i < count; i++, p += fat ? FAT_CLAUSE : SMALL_CLAUSE) {
		struct eh_clause *c = &v[(*n)++];

		if (fat)
			*c = (struct eh_clause){ rd32(p), rd32(p + 4), rd32(p + 8), rd32(p + 12), rd32(p + 16),
						 rd32(p + 20) };
		else
			*c = (struct eh_clause){ rd16(p), rd16(p + 2), p[4], rd16(p + 5), p[7], rd32(p + 8) };
	}
	return 0;
}

/* Parse the clauses of an IL method body (see ehsection.h). */
int eh_parse(const uint8_t *body, size_t len, struct eh_clause **out, size_t *n)
{
	size_t hdr, code, pos;
	uint8_t kind;
	int r;

	*out = NULL;
	*n = 0;
	if (!body || len < 1)
		return -EBADMSG;
	if ((body[0] & 0x3) == TINY_FORMAT)
		return (size_t)(body[0] >> 2) + 1 <= len ? 0 : -EBADMSG;
	if ((body[0] & 0x3) != FAT_FORMAT || len < 12)
		return -EBADMSG;
	hdr = (size_t)(body[1] >> 4) * 4;
	code = rd32(body + 4);
	if (hdr < 12 || hdr > len || code > len - hdr)
		return -EBADMSG;
	if (!(rd16(body) & FAT_MORE_SECTS))
		return 0;
	pos = hdr + code;
	do {
		size_t size, each, count;
		bool fat;

		pos = (pos + 3) & ~(size_t)3; /* sections are 4-aligned */
		if (pos > len || len - pos < 4)
			goto bad;
		kind = body[pos];
		fat = kind & SECT_FAT;
		size = fat ? rd24(body + pos + 1) : body[pos + 1];
		if (size < 4 || size > len - pos)
			goto bad;
		if (kind & SECT_EH_TABLE) {
			each = fat ? FAT_CLAUSE : SMALL_CLAUSE;
			count = (size - 4) / each;
			r = add_clauses(body + pos + 4, count, fat, out, n);
			if (r < 0)
				goto fail;
		}
		pos += size;
	} while (kind & SECT_MORE);
	return 0;
bad:
	r = -EBADMSG;
fail:
	free(*out);
	*out = NULL;
	*n = 0;
	return r;
}

/* Does clause A's try block hold clause B's?  (64-bit sums: no overflow.) */
static bool try_holds(const struct eh_clause *a, const struct eh_clause *b)
{
	return a->try_off <= b->try_off && (uint64_t)b->try_off + b->try_len <= (uint64_t)a->try_off + a->try_len;
}

/* A typed catch after a filter over the same code (see ehsection.h). */
bool eh_catch_after_filter(const struct eh_clause *c, size_t n, bool (*may_take)(uint32_t token, void *ud),
			   void *ud)
{
	for (size_t i = 0; i < n; i++) {
		if (!(c[i].flags & EH_CLAUSE_FILTER))
			continue;
		for (size_t j = i + 1; j < n; j++)
			if (!(c[j].flags & (EH_CLAUSE_FILTER | EH_CLAUSE_FINALLY | EH_CLAUSE_FAULT)) &&
			    try_holds(&c[j], &c[i]) && (!may_take || may_take(c[j].extra, ud)))
				return true;
	}
	return false;
}

/* The innermost catch/filter clause whose handler holds IL (ehsection.h). */
ssize_t eh_handler_at(const struct eh_clause *c, size_t n, uint32_t il)
{
	ssize_t best = -1;

	for (size_t i = 0; i < n; i++) {
		if (c[i].flags & (EH_CLAUSE_FINALLY | EH_CLAUSE_FAULT))
			continue;
		if (il < c[i].handler_off || (uint64_t)il >= (uint64_t)c[i].handler_off + c[i].handler_len)
			continue;
		if (best < 0 || c[i].handler_len < c[best].handler_len)
			best = (ssize_t)i;
	}
	return best;
}

/* The innermost clause of any kind whose handler holds IL, or -1. */
static ssize_t any_handler_at(const struct eh_clause *c, size_t n, uint32_t il)
{
	ssize_t best = -1;

	for (size_t i = 0; i < n; i++) {
		if (il < c[i].handler_off || (uint64_t)il >= (uint64_t)c[i].handler_off + c[i].handler_len)
			continue;
		if (best < 0 || c[i].handler_len < c[best].handler_len)
			best = (ssize_t)i;
	}
	return best;
}

/* Is INNER inside the handler that holds OUTER (ehsection.h)? */
int eh_within_handler(const struct eh_clause *c, size_t n, uint32_t outer, uint32_t inner)
{
	ssize_t i = any_handler_at(c, n, outer);

	if (i < 0)
		return -ENOENT;
	return inner >= c[i].handler_off && (uint64_t)inner < (uint64_t)c[i].handler_off + c[i].handler_len;
}

/* How many finally/fault clauses cover IL (ehsection.h). */
unsigned eh_finallys_covering(const struct eh_clause *c, size_t n, uint32_t il)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		if ((c[i].flags & (EH_CLAUSE_FINALLY | EH_CLAUSE_FAULT)) && il >= c[i].try_off &&
		    (uint64_t)il < (uint64_t)c[i].try_off + c[i].try_len)
			k++;
	return k;
}

static bool mapped(uint32_t il)
{
	return il != IL_NO_MAPPING && il != IL_PROLOG && il != IL_EPILOG;
}

/* The IL offset at native offset NATIVE (see ehsection.h). */
int il_offset_at(const struct il_map_entry *m, size_t n, uint32_t native, uint32_t *il)
{
	const struct il_map_entry *next = NULL;

	for (size_t i = 0; i < n; i++) {
		if (m[i].native_start <= native && native < m[i].native_end && mapped(m[i].il)) {
			*il = m[i].il;
			return 0;
		}
		if (m[i].native_start >= native && mapped(m[i].il) && (!next || m[i].native_start < next->native_start))
			next = &m[i];
	}
	/* the first mapped code after NATIVE must still be the same funclet:
	 * the runtime reports the prolog right before it */
	for (size_t i = 0; next && i < n; i++)
		if (m[i].native_start <= native && native < m[i].native_end && m[i].il == IL_PROLOG &&
		    next->native_start <= m[i].native_end) {
			*il = next->il;
			return 0;
		}
	return -ENOENT;
}
