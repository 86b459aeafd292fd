/* SPDX-License-Identifier: MIT */
/*
 * The IL exception-clause reader (src/profiler/families/exceptions/ehsection.c): tiny and fat
 * method headers, small and fat EH sections, several sections, and every
 * truncation and overflowing size of them; then the questions the filter
 * verdicts ask of the clauses and of an IL-to-native map.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/families/exceptions/ehsection.h"
#include "unit.h"

struct body {
	uint8_t b[512];
	size_t n;
};

static void put8(struct body *b, unsigned v)
{
	b->b[b->n++] = (uint8_t)v;
}

static void put16(struct body *b, unsigned v)
{
	put8(b, v & 0xff);
	put8(b, v >> 8);
}

static void put24(struct body *b, unsigned v)
{
	put16(b, v & 0xffff);
	put8(b, v >> 16);
}

static void put32(struct body *b, uint32_t v)
{
	put16(b, v & 0xffff);
	put16(b, v >> 16);
}

/* A fat header (flags: more sections if SECTS) and CODE bytes of IL. */
static void fat_header(struct body *b, uint32_t code, bool sects)
{
	b->n = 0;
	put16(b, 0x3003 | (sects ? 0x8 : 0) | 0x10); /* fat, 3 dwords, init locals */
	put16(b, 8);                                 /* max stack */
	put32(b, code);
	put32(b, 0);                                 /* no locals signature */
	for (uint32_t i = 0; i < code; i++)
		put8(b, 0x00);                       /* nop */
}

static void align4(struct body *b)
{
	while (b->n % 4)
		put8(b, 0);
}

/* A small EH section of N clauses from C (MORE: another section follows). */
static void small_section(struct body *b, const struct eh_clause *c, size_t n, bool more)
{
	align4(b);
	put8(b, 0x01 | (more ? 0x80 : 0));
	put8(b, (unsigned)(4 + 12 * n));
	put16(b, 0);
	for (size_t i = 0; i < n; i++) {
		put16(b, c[i].flags);
		put16(b, c[i].try_off);
		put8(b, c[i].try_len);
		put16(b, c[i].handler_off);
		put8(b, c[i].handler_len);
		put32(b, c[i].extra);
	}
}

static void fat_section(struct body *b, const struct eh_clause *c, size_t n, bool more)
{
	align4(b);
	put8(b, 0x41 | (more ? 0x80 : 0));
	put24(b, (unsigned)(4 + 24 * n));
	for (size_t i = 0; i < n; i++) {
		put32(b, c[i].flags);
		put32(b, c[i].try_off);
		put32(b, c[i].try_len);
		put32(b, c[i].handler_off);
		put32(b, c[i].handler_len);
		put32(b, c[i].extra);
	}
}

static bool same(const struct eh_clause *a, size_t na, const struct eh_clause *b, size_t nb)
{
	/* cppcheck-suppress nullPointer -- B is NULL only with NB 0, then NA is 0 */
	return na == nb && (na == 0 || memcmp(a, b, na * sizeof(*a)) == 0);
}

/* Parse B; its clauses must be WANT; every shorter prefix must fail cleanly. */
/* A may_take of eh_catch_after_filter: the catch's class token is *UD. */
static bool token_is(uint32_t token, void *ud)
{
	return token == *(uint32_t *)ud;
}

static void parses(const char *name, const struct body *b, const struct eh_clause *want, size_t nwant)
{
	struct eh_clause *c = NULL;
	size_t n = 99, bad = 0;
	int r = eh_parse(b->b, b->n, &c, &n);

	CHECK(r == 0 && same(c, n, want, nwant), "%s: %zu clauses read (r=%d, n=%zu)", name, nwant, r, n);
	free(c);
	for (size_t len = 0; len < b->n; len++) {
		/* a heap copy of exactly LEN bytes: ASan sees any overread */
		uint8_t *p = malloc(len ? len : 1);

		memcpy(p, b->b, len);
		r = eh_parse(p, len, &c, &n);
		/* a prefix may still be complete: bytes past the last section
		 * are alignment padding at most */
		if (!(r == -EBADMSG && !c && n == 0) && !(r == 0 && same(c, n, want, nwant)))
			bad++;
		free(c);
		free(p);
	}
	CHECK(bad == 0, "%s: each of its %zu truncations fails with EBADMSG and leaks nothing (%zu did not)", name,
	      b->n, bad);
}

int main(void)
{
	/* try { try { call } catch (E) when (f) {} } catch (E) {}: the
	 * filter clause first (inner), the plain catch after it (outer) */
	const struct eh_clause nested[] = {
		{ EH_CLAUSE_FILTER, 0, 6, 20, 4, 8 },
		{ 0, 0, 26, 26, 6, 0x02000002 },
	};
	const struct eh_clause fat[] = {
		{ EH_CLAUSE_FILTER, 0x10000, 0x300, 0x10400, 0x20, 0x10300 },
		{ EH_CLAUSE_FINALLY, 0, 0x20000, 0x20000, 0x10, 0 },
		{ 0, 0, 0x20000, 0x20010, 0x10, 0x01000001 },
	};
	struct eh_clause *c = NULL;
	struct body b;
	size_t n = 99;
	uint32_t il = 0;

	/* tiny header: no clauses */
	b.n = 0;
	put8(&b, 0x02 | (3 << 2));
	put8(&b, 0x00), put8(&b, 0x00), put8(&b, 0x2a);
	CHECK(eh_parse(b.b, b.n, &c, &n) == 0 && !c && n == 0, "tiny header: no clauses");
	CHECK(eh_parse(b.b, 2, &c, &n) == -EBADMSG, "tiny header, code cut short: EBADMSG");
	CHECK(eh_parse(NULL, 0, &c, &n) == -EBADMSG, "no body: EBADMSG");
	b.b[0] = 0x01;
	CHECK(eh_parse(b.b, b.n, &c, &n) == -EBADMSG, "neither tiny nor fat: EBADMSG");

	fat_header(&b, 7, false);
	parses("fat header without sections", &b, NULL, 0);

	fat_header(&b, 26 + 6, true);
	small_section(&b, nested, 2, false);
	parses("small EH section", &b, nested, 2);

	fat_header(&b, 33, true);
	fat_section(&b, fat, 3, false);
	parses("fat EH section", &b, fat, 3);

	/* a section of another kind first, then a small and a fat one */
	fat_header(&b, 5, true);
	align4(&b);
	put8(&b, 0x80 | 0x02), put8(&b, 8), put16(&b, 0), put32(&b, 0xdeadbeef);
	small_section(&b, nested, 2, true);
	fat_section(&b, fat, 3, false);
	{
		struct eh_clause all[5];

		memcpy(all, nested, sizeof(nested));
		memcpy(all + 2, fat, sizeof(fat));
		parses("three sections", &b, all, 5);
	}

	/* sizes that would overflow or point past the end */
	fat_header(&b, 4, true);
	b.b[4] = 0xff, b.b[5] = 0xff, b.b[6] = 0xff, b.b[7] = 0xff;
	CHECK(eh_parse(b.b, b.n, &c, &n) == -EBADMSG && !c, "code size 0xffffffff: EBADMSG");
	fat_header(&b, 4, true);
	b.b[1] = 0x10; /* header of 1 dword: smaller than a fat header */
	CHECK(eh_parse(b.b, b.n, &c, &n) == -EBADMSG, "fat header claiming 4 bytes: EBADMSG");
	fat_header(&b, 4, true);
	align4(&b);
	put8(&b, 0x41), put24(&b, 0xffffff);
	CHECK(eh_parse(b.b, b.n, &c, &n) == -EBADMSG && !c, "fat section of 16 MiB in 24 bytes: EBADMSG");
	fat_header(&b, 4, true);
	align4(&b);
	put8(&b, 0x01), put8(&b, 2), put16(&b, 0);
	CHECK(eh_parse(b.b, b.n, &c, &n) == -EBADMSG, "section smaller than its own header: EBADMSG");
	fat_header(&b, 4, true);
	small_section(&b, nested, 2, true); /* says more follow; none does */
	CHECK(eh_parse(b.b, b.n, &c, &n) == -EBADMSG && !c && n == 0, "missing further section: EBADMSG, nothing kept");

	/* random bodies: never a crash or an overread (under ASan) */
	srand(1);
	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)rand() % 96;
		uint8_t *p = malloc(len ? len : 1);

		for (size_t k = 0; k < len; k++)
			p[k] = (uint8_t)rand();
		if (len)
			p[0] = (uint8_t)((p[0] & ~3u) | 3u);
		if (len > 1)
			p[1] = (uint8_t)((p[1] & 0x0f) | 0x30);
		if (len > 7)
			p[4] = (uint8_t)(p[4] % 16), p[5] = p[6] = p[7] = 0, p[0] |= 8;
		if (eh_parse(p, len, &c, &n) == 0)
			free(c);
		free(p);
	}
	CHECK(1, "20000 random bodies parsed without a crash");

	/* the questions */
	CHECK(eh_catch_after_filter(nested, 2, NULL, NULL), "nested: a plain catch after the filter holds its try");
	{
		const struct eh_clause two_filters[] = {
			{ EH_CLAUSE_FILTER, 0, 6, 10, 4, 8 },
			{ EH_CLAUSE_FILTER, 0, 6, 20, 4, 16 },
		};
		const struct eh_clause catch_first[] = {
			{ 0, 0, 6, 6, 4, 0x02000002 },
			{ EH_CLAUSE_FILTER, 0, 6, 20, 4, 12 },
		};
		const struct eh_clause disjoint[] = {
			{ EH_CLAUSE_FILTER, 0, 6, 10, 4, 8 },
			{ 0, 30, 6, 36, 4, 0x02000002 },
		};
		const struct eh_clause finally_after[] = {
			{ EH_CLAUSE_FILTER, 0, 6, 10, 4, 8 },
			{ EH_CLAUSE_FINALLY, 0, 14, 14, 2, 0 },
		};
		const struct eh_clause same_try[] = {
			{ EH_CLAUSE_FILTER, 0, 6, 10, 4, 8 },
			{ 0, 0, 6, 14, 4, 0x02000002 },
		};

		CHECK(!eh_catch_after_filter(two_filters, 2, NULL, NULL), "two filters: no plain catch");
		CHECK(!eh_catch_after_filter(catch_first, 2, NULL, NULL), "a plain catch before the filter does not count");
		CHECK(!eh_catch_after_filter(disjoint, 2, NULL, NULL), "a plain catch of other code does not count");
		CHECK(!eh_catch_after_filter(finally_after, 2, NULL, NULL), "a finally is no catch");
		CHECK(eh_catch_after_filter(same_try, 2, NULL, NULL), "a plain catch of the same try counts");
		CHECK(!eh_catch_after_filter(NULL, 0, NULL, NULL), "no clauses: nothing");
		/* the plain catch's type cannot match the exception's: it cannot
		 * take what the filter declined */
		CHECK(!eh_catch_after_filter(same_try, 2, token_is, &(uint32_t){ 0x02000003 }),
		      "a plain catch of another type does not count");
		CHECK(eh_catch_after_filter(same_try, 2, token_is, &(uint32_t){ 0x02000002 }),
		      "a plain catch whose type may match counts");
	}
	CHECK(eh_handler_at(nested, 2, 21) == 0, "IL 21 is in the filter clause's handler");
	CHECK(eh_handler_at(nested, 2, 26) == 1, "IL 26 is in the plain catch's handler");
	CHECK(eh_handler_at(nested, 2, 2) == -1, "IL 2 is in no handler");
	CHECK(eh_handler_at(fat, 3, 0x20010) == 2, "a finally's handler is never the answer");
	{
		/* a handler inside another handler: the innermost wins */
		const struct eh_clause inner[] = {
			{ 0, 40, 4, 44, 2, 1 },
			{ EH_CLAUSE_FILTER, 0, 30, 34, 20, 30 },
		};
		const struct eh_clause wrap[] = { { 0, 0, 4, 0xfffffff0u, 0x20, 1 } };

		CHECK(eh_handler_at(inner, 2, 45) == 0 && eh_handler_at(inner, 2, 34) == 1, "innermost handler wins");
		CHECK(eh_handler_at(wrap, 1, 0xfffffff8u) == 0 && eh_handler_at(wrap, 1, 2) == -1,
		      "handler ranges reaching past 4 GiB do not wrap around");
	}
	{
		/* a main body, then a catch funclet: prolog, then IL 0x14 */
		const struct il_map_entry map[] = {
			{ IL_PROLOG, 0, 8 }, { 0, 8, 20 }, { 6, 20, 40 }, { IL_EPILOG, 40, 48 },
			{ IL_PROLOG, 48, 56 }, { 0x14, 56, 70 }, { IL_NO_MAPPING, 70, 80 }, { 0x30, 90, 100 },
		};

		CHECK(il_offset_at(map, 8, 48, &il) == 0 && il == 0x14, "funclet start: its prolog, then IL 0x14");
		CHECK(il_offset_at(map, 8, 60, &il) == 0 && il == 0x14, "inside a mapped entry: its IL offset");
		CHECK(il_offset_at(map, 8, 72, &il) == -ENOENT, "unmapped code: no guess");
		CHECK(il_offset_at(map, 8, 85, &il) == -ENOENT, "code in no entry: no guess");
		CHECK(il_offset_at(map, 8, 200, &il) == -ENOENT, "past the end: nothing");
		CHECK(il_offset_at(NULL, 0, 0, &il) == -ENOENT, "empty map: nothing");
	}
	{
		/* try 0..10 { } catch 10..30 { try 12..4 { } catch 16..4 { } },
		 * then a catch of the whole 0..40 at 40..6, and a finally 0..50 */
		const struct eh_clause m[] = {
			{ 0, 12, 4, 16, 4, 1 },
			{ 0, 0, 10, 10, 20, 1 },
			{ 0, 0, 40, 40, 6, 1 },
			{ EH_CLAUSE_FINALLY, 0, 50, 50, 4, 0 },
		};

		CHECK(eh_within_handler(m, 4, 10, 16) == 1, "a catch inside the outer catch block: within");
		CHECK(eh_within_handler(m, 4, 10, 40) == 0, "a catch past the outer catch block: not within");
		CHECK(eh_within_handler(m, 4, 51, 52) == 1, "a finally's handler counts as the outer one");
		CHECK(eh_within_handler(m, 4, 5, 16) == -ENOENT, "an outer address in no handler: unknown");
		CHECK(eh_finallys_covering(m, 4, 12) == 1 && eh_finallys_covering(m, 4, 50) == 0,
		      "finally blocks covering a call site");
	}
	if (failures)
		printf("%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
