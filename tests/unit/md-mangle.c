/* SPDX-License-Identifier: MIT */
/*
 * md-dump mangle FILE: the metadata reader over every truncation and many
 * corruptions of a real assembly (tests/metadata.sh), each copy in a
 * buffer of exactly its size, so that a read outside it is a fault (or,
 * under --enable-sanitizers, an ASan report).  A truncated copy that opens
 * must answer every lookup as the whole does, or with an error: the bytes
 * it reads are the same.  A corrupted copy may answer anything but must
 * not read outside.  And two loops in NestedClass, crafted: malformed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/metadata.h"
#include "common/util.h"
#include "md-dump.h"

/* What a mangling did. */
struct tally {
	size_t variants, opened, answers, wrong;
};

/* Note a wrong answer (the first few said). */
static void wrong(struct tally *t, const char *what, size_t len, uint32_t a, uint32_t b)
{
	if (t->wrong++ < 10)
		printf("wrong: %zu bytes: %s %u %u\n", len, what, a, b);
}

/* Whether two lookups agree: the same status and, when both succeeded,
 * the same string. */
static bool same_string(int k, const char *s, int kw, const char *w)
{
	return k < 0 || (kw == 0 && strcmp(s, w) == 0);
}

/* Every column of every row (and one past each end) of MD; compared with
 * FULL's when given. */
static void exercise_tables(const struct md *md, const struct md *full, size_t len, struct tally *t)
{
	for (unsigned tab = 0; tab <= MD_TABLE_MAX; tab++) {
		uint32_t rows = tab < MD_TABLE_MAX ? md->rows[tab] : 0;
		unsigned cols = tab < MD_TABLE_MAX ? md->columns[tab] : 0;

		for (uint32_t r = 0; r <= rows + 1; r++)
			for (unsigned c = 0; c <= cols; c++) {
				uint32_t v, w;

				if (md_get(md, tab, r, c, &v) < 0 || !full)
					continue;
				t->answers++;
				if (md_get(full, tab, r, c, &w) < 0 || v != w)
					wrong(t, "md_get table/row", len, tab, r);
			}
	}
}

/* Every index of the heaps (and past their ends); compared with FULL's. */
static void exercise_heaps(const struct md *md, const struct md *full, size_t len, struct tally *t)
{
	for (uint32_t i = 0; i <= md->strings_size + 1; i++) {
		const char *s = md_string(md, i), *w;

		if (!s || !full)
			continue;
		t->answers++;
		w = md_string(full, i);
		if (!w || strcmp(s, w) != 0)
			wrong(t, "md_string", len, i, 0);
	}
	for (uint32_t i = 0; i <= md->guid_size / 16 + 1; i++) {
		const uint8_t *g = md_guid(md, i), *w;

		if (!g || !full)
			continue;
		t->answers++;
		w = md_guid(full, i);
		if (!w || memcmp(g, w, 16) != 0)
			wrong(t, "md_guid", len, i, 0);
	}
	for (uint32_t i = 0; i <= md->blob_size + 1; i++) {
		const uint8_t *b, *w;
		uint32_t n, wn;
		volatile uint8_t sink = 0;

		if (md_blob(md, i, &b, &n) < 0)
			continue;
		for (uint32_t j = 0; j < n; j++)
			sink ^= b[j];
		if (!full)
			continue;
		t->answers++;
		if (md_blob(full, i, &w, &wn) < 0 || n != wn || memcmp(b, w, n) != 0)
			wrong(t, "md_blob", len, i, n);
	}
	(void)md_string(md, UINT32_MAX);
	(void)md_guid(md, UINT32_MAX);
}

/* NAME (md_type_name, md_method_name) of rows 0 to ROWS + 1, compared with
 * FULL's. */
static void compare_names(const struct md *md, const struct md *full, uint32_t rows,
			  int (*name)(const struct md *, uint32_t, char **), const char *what, size_t len,
			  struct tally *t)
{
	for (uint32_t r = 0; r <= rows + 1; r++) {
		_cleanup_free_ char *s = NULL, *w = NULL;
		int k = name(md, r, &s), kw;

		if (!full)
			continue;
		t->answers++;
		kw = name(full, r, &w);
		if (!same_string(k, s, kw, w))
			wrong(t, what, len, r, 0);
	}
}

/* The names and finds of every TypeDef, MethodDef and field; compared
 * with FULL's. */
static void exercise_names(const struct md *md, const struct md *full, size_t len, struct tally *t)
{
	uint32_t ntypes = md->rows[MD_TYPEDEF];

	compare_names(md, full, ntypes, md_type_name, "md_type_name", len, t);
	compare_names(md, full, md->rows[MD_METHODDEF], md_method_name, "md_method_name", len, t);
	/* each field's name and each type's, looked up again */
	for (uint32_t r = 1; r <= md->rows[MD_FIELD]; r++) {
		uint32_t idx, owner, f, wf;
		const char *name;

		if (md_get(md, MD_FIELD, r, 1, &idx) < 0 || !(name = md_string(md, idx)))
			continue;
		owner = ntypes ? 1 + r % ntypes : 0;
		if (md_find_field(md, owner, name, &f) < 0 || !full)
			continue;
		t->answers++;
		if (md_find_field(full, owner, name, &wf) < 0 || f != wf)
			wrong(t, "md_find_field type/field", len, owner, r);
	}
	/* whether each method carries [UnmanagedCallersOnly] */
	for (uint32_t r = 0; r <= md->rows[MD_METHODDEF] + 1; r++) {
		int k = md_has_attribute(md, MD_TOKEN(MD_METHODDEF, r), UCO_NS, UCO_NAME);

		if (k < 0 || !full)
			continue;
		t->answers++;
		if (md_has_attribute(full, MD_TOKEN(MD_METHODDEF, r), UCO_NS, UCO_NAME) != k)
			wrong(t, "md_has_attribute", len, r, (uint32_t)k);
	}
	for (uint32_t r = 1; r <= ntypes; r++) {
		uint32_t n, ns, got, w;
		const char *name, *space;

		if (md_get(md, MD_TYPEDEF, r, 1, &n) < 0 || md_get(md, MD_TYPEDEF, r, 2, &ns) < 0 ||
		    !(name = md_string(md, n)) || !(space = md_string(md, ns)))
			continue;
		if (md_find_type(md, space, name, &got) < 0 || !full)
			continue;
		t->answers++;
		if (md_find_type(full, space, name, &w) < 0 || got != w)
			wrong(t, "md_find_type", len, r, got);
	}
}

/* Every lookup of MD (a copy of LEN bytes), compared with FULL's if given. */
static void exercise(const struct md *md, const struct md *full, size_t len, struct tally *t)
{
	uint8_t g[16], w[16];

	exercise_tables(md, full, len, t);
	exercise_heaps(md, full, len, t);
	exercise_names(md, full, len, t);
	if (md_mvid(md, g) == 0 && full) {
		t->answers++;
		if (md_mvid(full, w) < 0 || memcmp(g, w, 16) != 0)
			wrong(t, "md_mvid", len, 0, 0);
	}
}

/* Open a copy of the first LEN bytes of SRC, with byte AT set to VALUE
 * (AT == LEN: none), as an image or a metadata root, and exercise it;
 * compared with FULL when only truncated. */
static int variant(const uint8_t *src, size_t len, size_t at, uint8_t value, bool image, const struct md *full,
		   struct tally *t)
{
	_cleanup_free_ uint8_t *copy = malloc(len ? len : 1);
	struct md md;
	int k;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, src, len);
	if (at < len)
		copy[at] = value;
	k = image ? md_open_image(copy, len, MD_LAYOUT_FILE, &md) : md_open_root(copy, len, &md);
	t->variants++;
	if (k == 0) {
		t->opened++;
		exercise(&md, at < len ? NULL : full, len, t);
	}
	return 0;
}

/* Every truncation of SRC (SIZE bytes), and its first HEAD bytes (headers:
 * counts, sizes, offsets) each set to 0x00, 0xff and xor 0x5a; XOR_ALL:
 * every other byte xor 0x5a too. */
static int mangle(const uint8_t *src, size_t size, size_t head, bool xor_all, bool image, const struct md *full,
		  struct tally *t)
{
	int k;

	for (size_t len = 0; len <= size; len++)
		if ((k = variant(src, len, len, 0, image, full, t)) < 0)
			return k;
	for (size_t at = 0; at < size && (xor_all || at < head); at++) {
		if ((k = variant(src, size, at, src[at] ^ 0x5a, image, full, t)) < 0)
			return k;
		if (at >= head)
			continue;
		if ((k = variant(src, size, at, 0, image, full, t)) < 0 ||
		    (k = variant(src, size, at, 0xff, image, full, t)) < 0)
			return k;
	}
	return 0;
}

/* Where the metadata root of the file image IMG lies (the reader's own PE
 * lookups: the test is of what follows). */
static int find_root(const uint8_t *img, size_t size, size_t *off, uint32_t *len)
{
	uint32_t crva, csize, rva;
	size_t coff;
	struct md_pe pe;
	int k;

	k = md_pe_open(img, size, MD_LAYOUT_FILE, &pe);
	if (k < 0)
		return k;
	md_pe_dir(&pe, 14, &crva, &csize);
	if (csize < 16 || md_pe_rva(&pe, crva, 16, &coff) < 0)
		return -EBADMSG;
	rva = le32(img + coff + 8);
	*len = le32(img + coff + 12);
	return md_pe_rva(&pe, rva, *len, off);
}

/* Write VALUE into column COL of row ROW of TABLE of MD, whose bytes are
 * the writable COPY's. */
static void poke(uint8_t *copy, const struct md *md, enum md_table table, uint32_t row, unsigned col, uint32_t value)
{
	size_t at = (size_t)(md->table[table] - copy) + (size_t)(row - 1) * md->column[table][md->columns[table]] +
		    md->column[table][col];

	copy[at] = (uint8_t)value;
	copy[at + 1] = (uint8_t)(value >> 8);
	if (md->column[table][col + 1] - md->column[table][col] == 4) {
		copy[at + 2] = (uint8_t)(value >> 16);
		copy[at + 3] = (uint8_t)(value >> 24);
	}
}

/* A type nested in itself, and two nested in each other (a loop in
 * NestedClass no byte flip makes): md_type_name must say malformed, not
 * make up a name.  The number of wrong answers. */
static size_t nesting_loops(const uint8_t *root, uint32_t len)
{
	size_t bad = 0;

	for (int loop = 1; loop <= 2; loop++) {
		_cleanup_free_ uint8_t *copy = malloc(len);
		_cleanup_free_ char *name = NULL;
		uint32_t row = 0, inner = 0, outer = 0, q2 = 0, v;
		struct md md;
		int k;

		if (!copy || (memcpy(copy, root, len), md_open_root(copy, len, &md)) < 0)
			return bad + 1;
		/* a nested type whose enclosing type is nested too (row q2) */
		for (uint32_t q = 1; q <= md.rows[MD_NESTEDCLASS] && !q2; q++) {
			if (md_get(&md, MD_NESTEDCLASS, q, 0, &inner) < 0 || md_get(&md, MD_NESTEDCLASS, q, 1, &outer) < 0)
				return bad + 1;
			row = q;
			for (uint32_t r = 1; r <= md.rows[MD_NESTEDCLASS] && !q2; r++)
				if (md_get(&md, MD_NESTEDCLASS, r, 0, &v) == 0 && v == outer)
					q2 = r;
		}
		if (!q2) {
			printf("wrong: no type nested in a nested type to make a loop of\n");
			return bad + 1;
		}
		if (loop == 1)
			poke(copy, &md, MD_NESTEDCLASS, row, 1, inner);
		else
			poke(copy, &md, MD_NESTEDCLASS, q2, 1, inner);
		k = md_type_name(&md, inner, &name);
		if (k != -EBADMSG) {
			printf("wrong: TypeDef %u %s: md_type_name gave %s\n", inner,
			       loop == 1 ? "nested in itself" : "and its enclosing type nested in each other",
			       k < 0 ? why(k) : name);
			bad++;
		}
	}
	return bad;
}

/* md-dump mangle FILE. */
int cmd_mangle(const char *path)
{
	_cleanup_free_ uint8_t *img = NULL;
	struct tally root = {}, whole = {};
	struct md full;
	size_t size = 0, off = 0;
	uint32_t len = 0;
	int k;

	k = read_whole(path, &img, &size);
	if (k < 0)
		return fprintf(stderr, "md-dump: %s: %s\n", path, strerror(-k)), 1;
	k = find_root(img, size, &off, &len);
	if (k == 0)
		k = md_open_root(img + off, len, &full);
	if (k < 0)
		return fprintf(stderr, "md-dump: %s: %s\n", path, why(k)), 1;
	/* the root alone, every byte; then the whole file: its truncations and
	 * its PE headers, section table and CLI header */
	k = mangle(img + off, len, 512, true, false, &full, &root);
	if (k == 0)
		k = mangle(img, size, 1024, false, true, &full, &whole);
	if (k < 0)
		return fprintf(stderr, "md-dump: %s: %s\n", path, strerror(-k)), 1;
	root.wrong += nesting_loops(img + off, len);
	printf("%s: metadata root (%u bytes): %zu variants, %zu opened, %zu answers compared, %zu wrong\n", path, len,
	       root.variants, root.opened, root.answers, root.wrong);
	printf("%s: whole file (%zu bytes): %zu variants, %zu opened, %zu answers compared, %zu wrong\n", path, size,
	       whole.variants, whole.opened, whole.answers, whole.wrong);
	return root.wrong || whole.wrong ? 1 : 0;
}
