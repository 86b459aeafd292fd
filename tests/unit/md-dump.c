/* SPDX-License-Identifier: MIT */
/*
 * The metadata reader (src/common/metadata.c) over a real image.
 *
 *   md-dump FILE      what the reader finds in the assembly FILE, one a line:
 *                       T row name      md_type_name of each TypeDef row
 *                       M row name      md_method_name of each MethodDef row
 *                                       (and md_find_method finds it, or
 *                                       an overload before it, back)
 *                       F row field     each field of TypeDef row, found
 *                                       back by md_find_field
 *                       U row           each MethodDef row that carries
 *                                       [UnmanagedCallersOnly]
 *                                       (md_has_attribute)
 *                       V mvid          md_mvid, as .NET prints a GUID
 *                     A lookup that fails or disagrees (md_find_field,
 *                     md_find_type of a top-level type, md_method's owner),
 *                     or one of no such name or row that does not fail as
 *                     it should, is said on stderr and makes the exit
 *                     status 1.
 *
 *   md-dump --mapped FILE
 *                     the same, read from FILE laid out as the loader maps
 *                     it (MD_LAYOUT_MAPPED), and md_loaded_image_size of
 *                     both layouts checked
 *   md-dump mangle FILE
 *                     every truncation and many corruptions of FILE and of
 *                     its metadata: errors or right answers, never a read
 *                     outside (md-mangle.c)
 *
 * tests/metadata.sh compares the output with what reflection says of the
 * same rows (tests/programs/MdNames).  Bad input: one line, status 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/metadata.h"
#include "common/util.h"
#include "guid.h"
#include "md-dump.h"

/* What a reader's error means, for one line. */
const char *why(int k)
{
	switch (k) {
	case -EBADMSG: return "malformed metadata";
	case -EOPNOTSUPP: return "not a CLI image (or uncompressed metadata)";
	default: return strerror(-k);
	}
}

/* The whole of PATH in a buffer of exactly its size (so that a read past
 * its end is a read outside, for ASan): 0, or -errno. */
int read_whole(const char *path, uint8_t **ret, size_t *size)
{
	_cleanup_free_ uint8_t *buf = NULL;
	FILE *f = fopen(path, "rbe");
	struct stat st;
	int k = 0;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) < 0)
		k = -errno;
	else if (!S_ISREG(st.st_mode))
		k = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	/* malloc(0) may give NULL: one byte more keeps NULL for failure */
	else if (!(buf = malloc((size_t)st.st_size ? (size_t)st.st_size : 1)))
		k = -ENOMEM;
	else if (fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		k = ferror(f) ? -EIO : -ENODATA;  /* shrank while read */
	fclose(f);
	if (k == 0) {
		*ret = TAKE_PTR(buf);
		*size = (size_t)st.st_size;
	}
	return k;
}

/* The rows [*FIRST, *END) of LIST that TypeDef row TYPE owns: from its
 * column COL (FieldList, MethodList) to the next row's (II.22.37). */
static int list_range(const struct md *md, uint32_t type, unsigned col, enum md_table list, uint32_t *first,
		      uint32_t *end)
{
	int k = md_get(md, MD_TYPEDEF, type, col, first);

	if (k < 0)
		return k;
	if (type < md->rows[MD_TYPEDEF])
		return md_get(md, MD_TYPEDEF, type + 1, col, end);
	*end = md->rows[list] + 1;
	return 0;
}

/* Print "KIND ROW NAME" of a lookup FN that gave K and NAME, or say on
 * stderr why not.  Whether it printed. */
static bool print_row(char kind, uint32_t row, int k, const char *name, const char *fn, const char *path)
{
	if (k < 0) {
		fprintf(stderr, "%s: %s(%u): %s\n", path, fn, row, why(k));
		return false;
	}
	printf("%c %u %s\n", kind, row, name);
	return true;
}

/* Which TypeDef rows are nested (have a NestedClass row): a malloc'd
 * array indexed by row, or NULL. */
static bool *nested_rows(const struct md *md)
{
	bool *nested = calloc((size_t)md->rows[MD_TYPEDEF] + 1, sizeof(*nested));

	for (uint32_t r = 1; nested && r <= md->rows[MD_NESTEDCLASS]; r++) {
		uint32_t t;

		if (md_get(md, MD_NESTEDCLASS, r, 0, &t) == 0 && t <= md->rows[MD_TYPEDEF])
			nested[t] = true;
	}
	return nested;
}

/* md_find_type of TypeDef row T's own namespace and name: T itself when
 * it is top-level; a nested type is never found (a top-level namespace-less
 * type of its name may be).  Whether it did so. */
static bool find_type_back(const struct md *md, const bool *nested, uint32_t t, const char *path)
{
	uint32_t ns_idx, name_idx, found = 0;
	const char *ns, *name;
	int k;

	if (md_get(md, MD_TYPEDEF, t, 1, &name_idx) < 0 || md_get(md, MD_TYPEDEF, t, 2, &ns_idx) < 0 ||
	    !(name = md_string(md, name_idx)) || !(ns = md_string(md, ns_idx))) {
		fprintf(stderr, "%s: TypeDef %u: its name columns do not read\n", path, t);
		return false;
	}
	k = md_find_type(md, ns, name, &found);
	if (nested[t] ? k == -ENOENT || (k == 0 && found <= md->rows[MD_TYPEDEF] && !nested[found])
		      : k == 0 && found == t)
		return true;
	fprintf(stderr, "%s: TypeDef %u%s: md_find_type(\"%s\", \"%s\") gave %s %u\n", path, t,
		nested[t] ? " (nested)" : "", ns, name, k < 0 ? why(k) : "row", found);
	return false;
}

/* T lines, and md_find_type of each type's name (find_type_back); the
 * number of lookups that failed. */
static unsigned dump_types(const struct md *md, const char *path)
{
	_cleanup_free_ bool *nested = nested_rows(md);
	unsigned bad = 0;

	if (!nested) {
		fprintf(stderr, "%s: out of memory\n", path);
		return 1;
	}
	for (uint32_t t = 1; t <= md->rows[MD_TYPEDEF]; t++) {
		_cleanup_free_ char *name = NULL;
		int k = md_type_name(md, t, &name);

		if (!print_row('T', t, k, name, "md_type_name", path) || !find_type_back(md, nested, t, path))
			bad++;
	}
	return bad;
}

/* Whether Method row M lies in TypeDef row TYPE's MethodList range. */
static bool method_of(const struct md *md, uint32_t type, uint32_t m)
{
	uint32_t first, end;

	return list_range(md, type, 5, MD_METHODDEF, &first, &end) == 0 && m >= first && m < end;
}

/* M lines; md_method's owner must be the type whose method list holds the
 * row.  The number of lookups that failed. */
static unsigned dump_methods(const struct md *md, const char *path)
{
	unsigned bad = 0;

	for (uint32_t m = 1; m <= md->rows[MD_METHODDEF]; m++) {
		_cleanup_free_ char *full = NULL;
		const char *name = NULL;
		uint32_t owner = 0;
		int k = md_method_name(md, m, &full);

		if (!print_row('M', m, k, full, "md_method_name", path)) {
			bad++;
			continue;
		}
		k = md_method(md, m, &name, &owner);
		if (k < 0 || !name || !method_of(md, owner, m)) {
			fprintf(stderr, "%s: MethodDef %u: md_method gave %s, owner %u\n", path, m,
				k < 0 ? why(k) : name ? name : "no name", owner);
			bad++;
			continue;
		}
		/* found back by its name: itself, or an overload before it */
		uint32_t found = 0;
		const char *found_name = NULL;
		k = owner ? md_find_method(md, owner, name, &found) : 0;
		if (owner && (k < 0 || found > m || md_method(md, found, &found_name, &owner) < 0 ||
			      strcmp(found_name, name) != 0)) {
			fprintf(stderr, "%s: MethodDef %u: md_find_method(\"%s\") gave %s %u\n", path, m, name,
				k < 0 ? why(k) : "row", found);
			bad++;
		}
	}
	return bad;
}

/* U lines: the methods that carry [UnmanagedCallersOnly].  The number of
 * lookups that failed. */
static unsigned dump_uco(const struct md *md, const char *path)
{
	unsigned bad = 0;

	for (uint32_t m = 1; m <= md->rows[MD_METHODDEF]; m++) {
		int k = md_has_attribute(md, MD_TOKEN(MD_METHODDEF, m), UCO_NS, UCO_NAME);

		if (k < 0) {
			fprintf(stderr, "%s: MethodDef %u: md_has_attribute: %s\n", path, m, why(k));
			bad++;
		} else if (k)
			printf("U %u\n", m);
	}
	return bad;
}

/* F lines: each field of each type, which md_find_field must find back
 * (the first of its name: C# never gives two fields one name).  The
 * number of lookups that failed. */
static unsigned dump_fields(const struct md *md, const char *path)
{
	unsigned bad = 0;

	for (uint32_t t = 1; t <= md->rows[MD_TYPEDEF]; t++) {
		uint32_t first, end;

		if (list_range(md, t, 4, MD_FIELD, &first, &end) < 0) {
			fprintf(stderr, "%s: TypeDef %u: its field list does not read\n", path, t);
			bad++;
			continue;
		}
		for (uint32_t f = first; f < end; f++) {
			uint32_t name_idx, found = 0;
			const char *name;
			int k;

			if (md_get(md, MD_FIELD, f, 1, &name_idx) < 0 || !(name = md_string(md, name_idx))) {
				fprintf(stderr, "%s: Field %u: its name does not read\n", path, f);
				bad++;
				continue;
			}
			k = md_find_field(md, t, name, &found);
			if (k < 0 || found != f) {
				fprintf(stderr, "%s: Field %u: md_find_field(%u, \"%s\") gave %s %u\n", path, f, t, name,
					k < 0 ? why(k) : "row", found);
				bad++;
				continue;
			}
			printf("F %u %s\n", t, name);
		}
	}
	return bad;
}

/* Lookups that must fail, and how: a name no type or field has
 * (-ENOENT), rows past either end (-EBADMSG).  The number that did not. */
static unsigned check_misses(const struct md *md, const char *path)
{
	static const char none[] = "md-dump: no such name";
	uint32_t past = md->rows[MD_TYPEDEF] + 1, row = 0;
	char *n0 = NULL, *n1 = NULL, *n2 = NULL;  /* set only by a wrong success */
	const char *simple = NULL;
	struct {
		const char *what;
		int got, want;
	} c[] = {
		{ "md_find_type of no such name", md_find_type(md, "", none, &row), -ENOENT },
		{ "md_find_field of no such name", md_find_field(md, 1, none, &row), -ENOENT },
		{ "md_find_field in TypeDef 0", md_find_field(md, 0, none, &row), -EBADMSG },
		{ "md_find_field past the last TypeDef", md_find_field(md, past, none, &row), -EBADMSG },
		{ "md_type_name of TypeDef 0", md_type_name(md, 0, &n0), -EBADMSG },
		{ "md_type_name past the last TypeDef", md_type_name(md, past, &n1), -EBADMSG },
		{ "md_method of MethodDef 0", md_method(md, 0, &simple, &row), -EBADMSG },
		{ "md_method_name past the last MethodDef", md_method_name(md, md->rows[MD_METHODDEF] + 1, &n2),
		  -EBADMSG },
		{ "md_get of column 9 of TypeDef 1", md_get(md, MD_TYPEDEF, 1, MD_MAX_COLUMNS, &row), -EBADMSG },
		{ "md_has_attribute of MethodDef 0", md_has_attribute(md, MD_TOKEN(MD_METHODDEF, 0), UCO_NS, UCO_NAME),
		  -EBADMSG },
		{ "md_has_attribute of a table no attribute names",
		  md_has_attribute(md, MD_TOKEN(MD_NESTEDCLASS, 1), UCO_NS, UCO_NAME), -EBADMSG },
	};
	unsigned bad = 0;

	for (size_t i = 0; i < ELEMENTSOF(c); i++)
		if (c[i].got != c[i].want) {
			fprintf(stderr, "%s: %s gave %d, want %d\n", path, c[i].what, c[i].got, c[i].want);
			bad++;
		}
	free(n0);
	free(n1);
	free(n2);
	return bad;
}

/* A file image: its bytes, and where its sections' data ends. */
struct image {
	uint8_t *bytes;
	size_t size, data_end;
};

/* FILE (a file image) laid out as the loader maps it: its headers, then
 * each section's data at its RVA, in a zeroed buffer of SizeOfImage bytes
 * (*MAPPED).  0, -EBADMSG (headers this test does not follow), -ENOMEM. */
static int map_image(struct image *file, struct image *mapped)
{
	const uint8_t *img = file->bytes;
	uint32_t lfanew, nsec, opt, headers;
	size_t sec;

	if (file->size < 0x40)
		return -EBADMSG;
	lfanew = le32(img + 0x3c);
	opt = lfanew + 24;
	if ((uint64_t)opt + 64 > file->size)
		return -EBADMSG;
	nsec = le16(img + lfanew + 6);
	sec = (size_t)opt + le16(img + lfanew + 20);
	mapped->size = le32(img + opt + 56);    /* SizeOfImage */
	headers = le32(img + opt + 60);         /* SizeOfHeaders */
	if (sec + (size_t)nsec * 40 > file->size || headers > file->size || headers > mapped->size ||
	    mapped->size > (1u << 30))
		return -EBADMSG;
	mapped->bytes = calloc(mapped->size ? mapped->size : 1, 1);
	if (!mapped->bytes)
		return -ENOMEM;
	memcpy(mapped->bytes, img, headers);
	file->data_end = headers;
	for (uint32_t i = 0; i < nsec; i++) {
		const uint8_t *s = img + sec + (size_t)i * 40;
		uint32_t va = le32(s + 12), raw = le32(s + 16), ptr = le32(s + 20);

		if ((uint64_t)ptr + raw > file->size || va > mapped->size)
			return -EBADMSG;
		/* the file's alignment may round the last section past the image's */
		memcpy(mapped->bytes + va, img + ptr, raw < mapped->size - va ? raw : mapped->size - va);
		if (ptr + raw > file->data_end)
			file->data_end = ptr + raw;
	}
	return 0;
}

/* md_loaded_image_size of FILE and of MAPPED: where the sections' data ends
 * and SizeOfImage.  Whether they are. */
static bool check_loaded_size(const struct image *file, const struct image *mapped, const char *path)
{
	/* it reads the first page: a file smaller is mapped in a whole page,
	 * zero past its end */
	_cleanup_free_ uint8_t *page = file->size < 4096 ? calloc(4096, 1) : NULL;
	size_t n = 0;
	int k;
	bool good = true;

	if (file->size < 4096) {
		if (!page)
			return false;
		memcpy(page, file->bytes, file->size);
	}
	if ((k = md_loaded_image_size(page ? page : file->bytes, MD_LAYOUT_FILE, &n)) < 0 || n != file->data_end) {
		fprintf(stderr, "%s: md_loaded_image_size (file of %zu bytes): %s %zu, want %zu\n", path, file->size,
			k < 0 ? why(k) : "size", n, file->data_end);
		good = false;
	}
	if ((k = md_loaded_image_size(mapped->bytes, MD_LAYOUT_MAPPED, &n)) < 0 || n != mapped->size) {
		fprintf(stderr, "%s: md_loaded_image_size (mapped): %s %zu, want %zu\n", path, k < 0 ? why(k) : "size", n,
			mapped->size);
		good = false;
	}
	return good;
}

/* md-dump [--mapped] FILE. */
static int cmd_dump(const char *path, bool as_mapped)
{
	_cleanup_free_ uint8_t *img = NULL, *map = NULL;
	struct image file = {}, mapped = {};
	uint8_t mvid[16];
	struct md md;
	unsigned bad = 0;
	int k;

	k = read_whole(path, &img, &file.size);
	if (k < 0)
		return fprintf(stderr, "md-dump: %s: %s\n", path, strerror(-k)), 1;
	file.bytes = img;
	if (as_mapped) {
		k = map_image(&file, &mapped);
		map = mapped.bytes;
		if (k < 0)
			return fprintf(stderr, "md-dump: %s: cannot map it: %s\n", path, why(k)), 1;
		if (!check_loaded_size(&file, &mapped, path))
			bad++;
		k = md_open_image(mapped.bytes, mapped.size, MD_LAYOUT_MAPPED, &md);
	} else
		k = md_open_image(file.bytes, file.size, MD_LAYOUT_FILE, &md);
	if (k < 0)
		return fprintf(stderr, "md-dump: %s: %s\n", path, why(k)), 1;
	bad += dump_types(&md, path) + dump_methods(&md, path) + dump_uco(&md, path) + dump_fields(&md, path) +
	       check_misses(&md, path);
	k = md_mvid(&md, mvid);
	if (k < 0) {
		fprintf(stderr, "%s: md_mvid: %s\n", path, why(k));
		bad++;
	} else {
		printf("V ");
		guid_print(mvid);
	}
	/* N: whether the image carries ReadyToRun (native) code, and its header's major version */
	unsigned major = 0;

	k = as_mapped ? md_ready_to_run(mapped.bytes, mapped.size, MD_LAYOUT_MAPPED, &major)
		      : md_ready_to_run(file.bytes, file.size, MD_LAYOUT_FILE, &major);
	if (k < 0) {
		fprintf(stderr, "%s: md_ready_to_run: %s\n", path, why(k));
		bad++;
	} else
		printf("N %d %u\n", k, major);
	if (bad)
		fprintf(stderr, "md-dump: %s: %u lookups failed\n", path, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && streq(argv[1], "mangle"))
		return cmd_mangle(argv[2]);
	if (argc == 3 && streq(argv[1], "--mapped"))
		return cmd_dump(argv[2], true);
	if (argc == 2 && argv[1][0] != '-' && !streq(argv[1], "mangle"))
		return cmd_dump(argv[1], false);
	fprintf(stderr, "usage: md-dump [--mapped] FILE | md-dump mangle FILE\n");
	return 2;
}
