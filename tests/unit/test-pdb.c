/* SPDX-License-Identifier: MIT */
/*
 * The portable PDB reader (src/common/pdb.c).
 *
 *   test-pdb                      unit tests over a PDB built here by hand
 *   test-pdb lookup [--mvid GUID] ASM TOKEN IL…
 *                                 the file:line of each (token, IL offset)
 *                                 of the assembly ASM (of the build GUID),
 *                                 as the CLI would
 *   test-pdb mvid ASM             the MVID of ASM, as .NET prints it
 *   test-pdb id PDB               the PDB id of PDB (hex), unchecked
 *   test-pdb mangle FILE          every truncation and many corruptions of a
 *                                 PDB or an assembly: errors, never a crash
 *
 * tests/pdb.sh drives the helpers with tests/programs/Lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/pdb.h"
#include "common/strbuf.h"
#include "common/util.h"
#include "guid.h"
#include "unit.h"

/* ---- a PDB built by hand --------------------------------------------- */

struct bytes {
	uint8_t v[4096];
	size_t n;
};

static void put(struct bytes *b, const void *p, size_t n)
{
	if (b->n + n > sizeof(b->v))
		abort();
	memcpy(b->v + b->n, p, n);
	b->n += n;
}

static void put8(struct bytes *b, uint8_t x)
{
	put(b, &x, 1);
}

static void put16(struct bytes *b, uint16_t x)
{
	put8(b, (uint8_t)x);
	put8(b, (uint8_t)(x >> 8));
}

static void put32(struct bytes *b, uint32_t x)
{
	put16(b, (uint16_t)x);
	put16(b, (uint16_t)(x >> 16));
}

/* A compressed unsigned integer. */
static void putu(struct bytes *b, uint32_t x)
{
	if (x < 0x80)
		put8(b, (uint8_t)x);
	else if (x < 0x4000) {
		put8(b, (uint8_t)(0x80 | x >> 8));
		put8(b, (uint8_t)x);
	} else {
		put8(b, (uint8_t)(0xc0 | x >> 24));
		put8(b, (uint8_t)(x >> 16));
		put8(b, (uint8_t)(x >> 8));
		put8(b, (uint8_t)x);
	}
}

/* A compressed signed integer (ECMA-335 II.23.2: rotated, sign lowest). */
static void puts_(struct bytes *b, int32_t x)
{
	uint32_t s = x < 0;

	if (x >= -64 && x < 64)
		putu(b, ((uint32_t)x & 0x3f) << 1 | s);
	else if (x >= -8192 && x < 8192)
		putu(b, ((uint32_t)x & 0x1fff) << 1 | s);
	else
		putu(b, ((uint32_t)x & 0xfffffff) << 1 | s);
}

/* Add a blob to the heap; its index. */
static uint16_t blob(struct bytes *heap, const void *p, size_t n)
{
	uint16_t idx = (uint16_t)heap->n;

	putu(heap, (uint32_t)n);
	put(heap, p, n);
	return idx;
}

static void align4(struct bytes *b)
{
	while (b->n % 4)
		put8(b, 0);
}

/* Two documents ("/src/Program.cs", "src/Other.cs") and four methods:
 * 0x06000001 with visible, hidden, document-switching and signed-delta
 * points; 0x06000002 with no Document column (InitialDocument) and a
 * 4-byte line; 0x06000003 with no points; 0x06000004 hidden only.  BIG:
 * with 4-byte #Blob and #GUID indices (the heap-size flags of large PDBs). */
static void build_pdb(struct bytes *out, bool big)
{
	struct bytes heap = {}, sp = {}, name = {}, tables = {}, pdbs = {}, guids = {};
	uint16_t src, prog, other, doc1, doc2, m1, m2, m4;

	put8(&heap, 0);  /* blob 0: empty */
	src = blob(&heap, "src", 3);
	prog = blob(&heap, "Program.cs", 10);
	other = blob(&heap, "Other.cs", 8);
	put8(&name, '/'), putu(&name, 0), putu(&name, src), putu(&name, prog);
	doc1 = blob(&heap, name.v, name.n);
	name.n = 0;
	put8(&name, '/'), putu(&name, src), putu(&name, other);
	doc2 = blob(&heap, name.v, name.n);

	putu(&sp, 0);                                                     /* LocalSignature */
	putu(&sp, 0), putu(&sp, 0), putu(&sp, 5), putu(&sp, 10), putu(&sp, 9); /* IL 0: 10:9-14 */
	putu(&sp, 6), putu(&sp, 0), putu(&sp, 0);                         /* IL 6: hidden */
	putu(&sp, 4), putu(&sp, 2), puts_(&sp, -3), puts_(&sp, 5), puts_(&sp, -4); /* IL 10: 15:5-17:2 */
	putu(&sp, 0), putu(&sp, 2);                                       /* → document 2 */
	putu(&sp, 8), putu(&sp, 0), putu(&sp, 1), puts_(&sp, -13), puts_(&sp, 1); /* IL 18: 2:6 */
	putu(&sp, 2), putu(&sp, 0), putu(&sp, 1), puts_(&sp, 300), puts_(&sp, 0); /* IL 20: 302 */
	putu(&sp, 2), putu(&sp, 0), putu(&sp, 1), puts_(&sp, -200), puts_(&sp, 0); /* IL 22: 102 */
	m1 = blob(&heap, sp.v, sp.n);
	sp.n = 0;
	putu(&sp, 0), putu(&sp, 2);                                       /* InitialDocument 2 */
	putu(&sp, 3), putu(&sp, 0), putu(&sp, 3), putu(&sp, 100000), putu(&sp, 1);
	m2 = blob(&heap, sp.v, sp.n);
	sp.n = 0;
	putu(&sp, 0), putu(&sp, 0), putu(&sp, 0), putu(&sp, 0);           /* IL 0: hidden */
	m4 = blob(&heap, sp.v, sp.n);
	align4(&heap);

	for (int i = 0; i < 16; i++)
		put8(&guids, (uint8_t)(0xa0 + i));

	for (int i = 0; i < 20; i++)
		put8(&pdbs, (uint8_t)(i + 1));  /* the PDB id */
	put32(&pdbs, 0), put32(&pdbs, 0), put32(&pdbs, 0);  /* entry point, no type-system tables */

	/* a heap index: 2 bytes, or 4 with the heap's size flag */
#define IDX(v) (big ? put32(&tables, (v)) : put16(&tables, (uint16_t)(v)))
	put32(&tables, 0), put8(&tables, 2), put8(&tables, 0), put8(&tables, big ? 0x06 : 0), put8(&tables, 1);
	put32(&tables, 0), put32(&tables, 3 << 16);  /* valid: tables 0x30, 0x31 */
	put32(&tables, 0), put32(&tables, 0);        /* sorted */
	put32(&tables, 2), put32(&tables, 4);        /* rows */
	IDX(doc1), IDX(1), IDX(0), IDX(1);  /* Name, HashAlgorithm, Hash, Language */
	IDX(doc2), IDX(1), IDX(0), IDX(1);
	put16(&tables, 1), IDX(m1);  /* Document, SequencePoints */
	put16(&tables, 0), IDX(m2);
	put16(&tables, 1), IDX(0);
	put16(&tables, 1), IDX(m4);
#undef IDX
	align4(&tables);

	/* the root, then the four streams */
	static const char *const names[] = { "#Pdb", "#~", "#Blob", "#GUID" };
	const struct bytes *streams[] = { &pdbs, &tables, &heap, &guids };
	size_t headers = 0, off;

	for (size_t i = 0; i < 4; i++)
		headers += 8 + ((strlen(names[i]) + 4) & ~(size_t)3);
	out->n = 0;
	put32(out, 0x424a5342), put16(out, 1), put16(out, 1), put32(out, 0), put32(out, 12);
	put(out, "PDB v1.0\0\0\0\0", 12);
	put16(out, 0), put16(out, 4);
	off = out->n + headers;
	for (size_t i = 0; i < 4; i++) {
		size_t l = strlen(names[i]), pad = ((l + 4) & ~(size_t)3) - l;

		put32(out, (uint32_t)off), put32(out, (uint32_t)streams[i]->n);
		put(out, names[i], l);
		while (pad--)
			put8(out, 0);
		off += streams[i]->n;
	}
	for (size_t i = 0; i < 4; i++)
		put(out, streams[i]->v, streams[i]->n);
}

/* Look up and compare with FILE:LINE (FILE NULL: no line expected). */
static void check_line(struct pdb *p, uint32_t token, uint32_t il, const char *file, uint32_t line)
{
	const char *f = NULL;
	uint32_t l = 0;
	int k = pdb_lookup(p, token, il, &f, &l);

	if (!file)
		CHECK(k == -ENOENT, "0x%08x IL %u: no line (%d)", token, il, k);
	else
		CHECK(k == 0 && streq(f, file) && l == line, "0x%08x IL %u: %s:%u (got %d %s:%u)", token, il, file,
		      line, k, f ? f : "-", l);
}

/* Everything a reader of P could ask, for the corruption loops. */
static void exercise(struct pdb *p)
{
	for (uint32_t d = 0; d <= 3; d++)
		(void)pdb_document(p, d);
	for (uint32_t m = 0; m <= pdb_methods(p) + 1 && m < 4096; m++)
		for (uint32_t il = 0; il < 64; il += 7) {
			const char *f;
			uint32_t l;

			(void)pdb_lookup(p, 0x06000000 | m, il, &f, &l);
		}
}

static void test_handmade(bool big)
{
	_cleanup_(pdb_freep) struct pdb *p = NULL;
	_cleanup_free_ struct pdb_point *pts = NULL;
	struct bytes img;
	size_t n = 0, opened = 0;
	int k;

	printf("# the hand-made PDB, %s heap indices\n", big ? "4-byte" : "2-byte");
	build_pdb(&img, big);
	k = pdb_open_memory(img.v, img.n, &p);
	CHECK(k == 0, "the hand-made PDB opens (%d)", k);
	if (k < 0)
		return;
	CHECK(pdb_id(p)[0] == 1 && pdb_id(p)[19] == 20, "its id is read from #Pdb");
	CHECK(pdb_methods(p) == 4, "4 methods (%u)", pdb_methods(p));
	CHECK(streq(pdb_document(p, 1), "/src/Program.cs"), "document 1: an empty first part gives the leading '/' (%s)",
	      pdb_document(p, 1));
	CHECK(streq(pdb_document(p, 2), "src/Other.cs"), "document 2 (%s)", pdb_document(p, 2));
	CHECK(!pdb_document(p, 0) && !pdb_document(p, 3), "no document 0 or 3");

	k = pdb_sequence_points(p, 0x06000001, &pts, &n);
	CHECK(k == 0 && n == 6, "method 1: 6 points, the document record is not one (%d, %zu)", k, n);
	if (k == 0 && n == 6) {
		CHECK(pts[0].start_line == 10 && pts[0].start_column == 9 && pts[0].end_column == 14, "IL 0: 10:9-14");
		CHECK(pts[1].il_offset == 6 && pts[1].start_line == PDB_HIDDEN_LINE, "IL 6: hidden");
		CHECK(pts[2].il_offset == 10 && pts[2].start_line == 15 && pts[2].end_line == 17 &&
		      pts[2].start_column == 5 && pts[2].end_column == 2,
		      "IL 10: 15:5-17:2 (signed deltas from the last visible point)");
		CHECK(pts[3].document == 2 && pts[3].start_line == 2, "IL 18: document 2, line 2");
		CHECK(pts[4].start_line == 302 && pts[5].start_line == 102, "two-byte signed deltas: 302, 102");
	}
	check_line(p, 0x06000001, 0, "/src/Program.cs", 10);
	check_line(p, 0x06000001, 5, "/src/Program.cs", 10);
	check_line(p, 0x06000001, 6, "/src/Program.cs", 10);  /* hidden: the last visible one before */
	check_line(p, 0x06000001, 10, "/src/Program.cs", 15);
	check_line(p, 0x06000001, 17, "/src/Program.cs", 15);
	check_line(p, 0x06000001, 18, "src/Other.cs", 2);
	check_line(p, 0x06000001, 21, "src/Other.cs", 302);
	check_line(p, 0x06000001, 1000, "src/Other.cs", 102);
	check_line(p, 0x06000002, 2, NULL, 0);  /* before its first point */
	check_line(p, 0x06000002, 3, "src/Other.cs", 100000);
	check_line(p, 0x06000003, 0, NULL, 0);
	check_line(p, 0x06000004, 0, NULL, 0);
	check_line(p, 0x06000005, 0, NULL, 0);
	check_line(p, 0x06000000, 0, NULL, 0);
	check_line(p, 0x02000001, 0, NULL, 0);

	/* every truncation, and every byte flipped three ways: errors or
	 * answers, never a read outside the image (run under ASan/valgrind) */
	for (size_t len = 0; len < img.n; len++) {
		struct pdb *q = NULL;

		if (pdb_open_memory(img.v, len, &q) == 0) {
			opened++;
			exercise(q);
			pdb_free(q);
		}
	}
	CHECK(opened == 0, "every truncation of the hand-made PDB is refused (%zu opened)", opened);
	opened = 0;
	for (size_t i = 0; i < img.n; i++)
		for (unsigned f = 0; f < 3; f++) {
			static const uint8_t flips[] = { 0xff, 0x80, 0x01 };
			struct bytes bad = img;
			struct pdb *q = NULL;

			bad.v[i] ^= flips[f];
			if (pdb_open_memory(bad.v, bad.n, &q) == 0) {
				opened++;
				exercise(q);
				pdb_free(q);
			}
		}
	CHECK(true, "%zu corruptions of %zu bytes read without a fault (%zu opened)", img.n * 3, img.n, opened);
}

static void test_not_pdbs(void)
{
	static const char msf[] = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0";
	struct pdb *p = NULL;

	CHECK(pdb_open_memory(msf, sizeof(msf), &p) == -EOPNOTSUPP, "a Windows PDB: not supported");
	CHECK(pdb_open_memory("", 0, &p) == -EBADMSG, "an empty file: malformed");
	CHECK(pdb_open_for_assembly("/nonexistent/x.dll", NULL, &p) == -ENOENT, "a missing assembly: ENOENT");
}

/* ---- the helpers of tests/pdb.sh ------------------------------------- */

/* What an error means, in the words the CLI would use. */
static const char *why(int k)
{
	switch (k) {
	case -ENOENT: return "no PDB";
	case -ESTALE: return "stale: another build's";
	case -EBADE: return "not the PDB it was built with: the checksum differs";
	case -EBADMSG: return "malformed";
	case -EOPNOTSUPP: return "not a portable PDB";
	default: return strerror(-k);
	}
}

/* lookup [--mvid GUID] ASSEMBLY TOKEN IL…: as the CLI would resolve them */
static int cmd_lookup(int argc, char **argv)
{
	_cleanup_(pdb_cache_freep) struct pdb_cache *c = pdb_cache_new();
	uint8_t mvid[16], *want = NULL;
	struct pdb *p = NULL, *again = NULL;
	int k;

	if (!c)
		return 2;
	if (argc > 2 && streq(argv[0], "--mvid")) {
		if (!guid_parse(argv[1], mvid))
			return printf("bad GUID %s\n", argv[1]), 2;
		want = mvid;
		argc -= 2, argv += 2;
	}
	k = pdb_cache_get(c, argv[0], want, &p);
	/* the second call must come from the cache with the same answer */
	if (pdb_cache_get(c, argv[0], want, &again) != k || again != p) {
		printf("%s: the cache gave another answer\n", argv[0]);
		return 2;
	}
	if (k == -ENOENT || k == -ESTALE || k == -EBADE) {
		printf("%s: no lines (%s)\n", argv[0], why(k));
		return 0;
	}
	if (k < 0) {
		printf("%s: error: %s\n", argv[0], why(k));
		return 1;
	}
	for (int i = 1; i + 1 < argc; i += 2) {
		unsigned long token = strtoul(argv[i], NULL, 0), il = strtoul(argv[i + 1], NULL, 0);
		const char *file;
		uint32_t line;

		k = pdb_lookup(p, (uint32_t)token, (uint32_t)il, &file, &line);
		if (k == 0)
			printf("0x%08lx %lu %s:%u\n", token, il, file, line);
		else
			printf("0x%08lx %lu no line (%s)\n", token, il, why(k));
	}
	return 0;
}

/* id PDB: the PDB id (20 bytes) in hex, read with no check */
static int cmd_id(const char *path)
{
	struct pdb *p = NULL;
	int k = pdb_open_file(path, &p);

	if (k < 0)
		return printf("%s: error: %s\n", path, why(k)), 1;
	for (int i = 0; i < 20; i++)
		printf("%02x", pdb_id(p)[i]);
	putchar('\n');
	pdb_free(p);
	return 0;
}

/* mvid ASSEMBLY: its MVID as .NET prints it */
static int cmd_mvid(const char *path)
{
	uint8_t g[16];
	int k = pdb_assembly_mvid(path, g);

	if (k < 0)
		return printf("%s: error: %s\n", path, k == -EOPNOTSUPP ? "not a .NET assembly" : why(k)), 1;
	guid_print(g);
	return 0;
}

/* Every truncation of FILE, and FILE with each byte changed (a PDB; an
 * assembly as read with its embedded PDB): errors, never a fault. */
static int cmd_mangle(const char *path)
{
	_cleanup_free_ uint8_t *img = NULL;
	size_t size = 0, tried = 0, opened = 0;
	bool pe;
	FILE *f = fopen(path, "rbe");

	if (!f)
		return printf("%s: %s\n", path, strerror(errno)), 2;
	img = malloc(PDB_FILE_MAX / 64);
	size = img ? fread(img, 1, PDB_FILE_MAX / 64, f) : 0;
	fclose(f);
	if (!img || size == 0)
		return printf("%s: could not read it\n", path), 2;
	pe = size > 2 && img[0] == 'M' && img[1] == 'Z';
	for (size_t len = 0; len <= size; len++)
		for (size_t flip = 0; flip < 2; flip++) {
			size_t n = flip ? size : len;
			struct pdb *p = NULL;
			int k;

			if (flip && len == size)
				continue;
			if (flip)
				img[len] ^= 0x5a;
			k = pe ? pdb_open_for_image(img, n, NULL, &p) : pdb_open_memory(img, n, &p);
			if (pe) {
				uint8_t g[16];

				(void)pdb_image_mvid(img, n, g);
			}
			if (flip)
				img[len] ^= 0x5a;
			tried++;
			if (k == 0) {
				opened++;
				exercise(p);
				pdb_free(p);
			}
		}
	printf("%s: %zu variants read, %zu opened, no fault\n", path, tried, opened);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && streq(argv[1], "lookup"))
		return cmd_lookup(argc - 2, argv + 2);
	if (argc == 3 && streq(argv[1], "mangle"))
		return cmd_mangle(argv[2]);
	if (argc == 3 && streq(argv[1], "mvid"))
		return cmd_mvid(argv[2]);
	if (argc == 3 && streq(argv[1], "id"))
		return cmd_id(argv[2]);
	if (argc > 1) {
		fprintf(stderr, "usage: test-pdb [lookup [--mvid GUID] ASSEMBLY TOKEN IL… | mvid ASSEMBLY | id PDB | mangle FILE]\n");
		return 2;
	}
	test_handmade(false);
	test_handmade(true);
	test_not_pdbs();
	return failures ? 1 : 0;
}
