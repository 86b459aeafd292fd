/* SPDX-License-Identifier: MIT */
/*
 * The metadata reader (src/common/metadata.c) over a real image.
 *
 *   md-dump FILE      what the reader finds in the assembly FILE, one a line:
 *                       T row name      md_type_name of each TypeDef row
 *                       M row name      md_method_name of each MethodDef row
 *                       F row field     each field of TypeDef row, found
 *                                       back by md_find_field
 *                       V mvid          md_mvid, as .NET prints a GUID
 *                     A lookup that fails or disagrees (md_find_field,
 *                     md_find_type of a top-level type, md_method's owner)
 *                     is said on stderr and makes the exit status 1.
 *
 * tests/metadata.sh compares the output with what reflection says of the
 * same rows (tests/programs/MdNames).  Bad input: one line, status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/metadata.h"
#include "common/util.h"
#include "guid.h"

/* What a reader's error means, for one line. */
static const char *why(int k)
{
	switch (k) {
	case -EBADMSG: return "malformed metadata";
	case -EOPNOTSUPP: return "not a CLI image (or uncompressed metadata)";
	default: return strerror(-k);
	}
}

/* The whole of PATH in a buffer of exactly its size (so that a read past
 * its end is a read outside, for ASan): 0, or -errno. */
static int read_whole(const char *path, uint8_t **ret, size_t *size)
{
	_cleanup_free_ uint8_t *buf = NULL;
	struct stat st;
	size_t got = 0;
	int fd, k = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		k = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		k = -EISDIR;
		goto out;
	}
	/* malloc(0) may give NULL: one byte more keeps NULL for failure */
	buf = malloc((size_t)st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		k = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			k = n < 0 ? -errno : -EIO;
			goto out;
		}
		got += (size_t)n;
	}
	*ret = TAKE_PTR(buf);
	*size = got;
out:
	close(fd);
	return k;
}

/* Fields [*FIRST, *END) of TypeDef row TYPE, from its FieldList column and
 * the next row's (ECMA-335 II.22.37). */
static int field_range(const struct md *md, uint32_t type, uint32_t *first, uint32_t *end)
{
	int k = md_get(md, MD_TYPEDEF, type, 4, first);

	if (k < 0)
		return k;
	if (type < md->rows[MD_TYPEDEF])
		return md_get(md, MD_TYPEDEF, type + 1, 4, end);
	*end = md->rows[MD_FIELD] + 1;
	return 0;
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

		if (k < 0) {
			fprintf(stderr, "%s: TypeDef %u: md_type_name: %s\n", path, t, why(k));
			bad++;
			continue;
		}
		printf("T %u %s\n", t, name);
		if (!find_type_back(md, nested, t, path))
			bad++;
	}
	return bad;
}

/* Whether Method row M lies in TypeDef row TYPE's MethodList range. */
static bool method_of(const struct md *md, uint32_t type, uint32_t m)
{
	uint32_t first, end = md->rows[MD_METHODDEF] + 1;

	if (type < 1 || type > md->rows[MD_TYPEDEF] || md_get(md, MD_TYPEDEF, type, 5, &first) < 0)
		return false;
	if (type < md->rows[MD_TYPEDEF] && md_get(md, MD_TYPEDEF, type + 1, 5, &end) < 0)
		return false;
	return m >= first && m < end;
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

		if (k < 0) {
			fprintf(stderr, "%s: MethodDef %u: md_method_name: %s\n", path, m, why(k));
			bad++;
			continue;
		}
		printf("M %u %s\n", m, full);
		k = md_method(md, m, &name, &owner);
		if (k < 0 || !name || !method_of(md, owner, m)) {
			fprintf(stderr, "%s: MethodDef %u: md_method gave %s, owner %u\n", path, m,
				k < 0 ? why(k) : name ? name : "no name", owner);
			bad++;
		}
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

		if (field_range(md, t, &first, &end) < 0) {
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

/* md-dump FILE. */
static int cmd_dump(const char *path)
{
	_cleanup_free_ uint8_t *img = NULL;
	uint8_t mvid[16];
	struct md md;
	size_t size = 0;
	unsigned bad;
	int k;

	k = read_whole(path, &img, &size);
	if (k < 0)
		return fprintf(stderr, "md-dump: %s: %s\n", path, strerror(-k)), 1;
	k = md_open_image(img, size, MD_LAYOUT_FILE, &md);
	if (k < 0)
		return fprintf(stderr, "md-dump: %s: %s\n", path, why(k)), 1;
	bad = dump_types(&md, path) + dump_methods(&md, path) + dump_fields(&md, path);
	k = md_mvid(&md, mvid);
	if (k < 0) {
		fprintf(stderr, "%s: md_mvid: %s\n", path, why(k));
		bad++;
	} else {
		printf("V ");
		guid_print(mvid);
	}
	if (bad)
		fprintf(stderr, "md-dump: %s: %u lookups failed\n", path, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && argv[1][0] != '-')
		return cmd_dump(argv[1]);
	fprintf(stderr, "usage: md-dump FILE\n");
	return 2;
}
