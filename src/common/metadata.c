/* SPDX-License-Identifier: MIT */
/*
 * ECMA-335 metadata read in place (see metadata.h): PE headers, the
 * metadata root, the #~ table stream sized from one column table, and the
 * lookups by row.  Every offset and size read is checked against what
 * holds it before use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/metadata.h"
#include "common/strbuf.h"
#include "common/util.h"

#define HEAP_STRINGS_BIG 0x01
#define HEAP_GUID_BIG 0x02
#define HEAP_BLOB_BIG 0x04
#define HEAP_EXTRA_DATA 0x40  /* one more u32 after the row counts */
#define TYPE_VISIBILITY_MASK 0x7
#define TYPE_NESTED_PUBLIC 0x2  /* visibilities from here on are nested */
#define MAX_NESTING 16          /* deeper is a loop in a malformed image */
#define MAX_IMAGE (1u << 30)

/* ---- the column table ------------------------------------------------ */

/* A column: a fixed size, a heap index, an index into one table, or a
 * coded index (a tag in the low bits naming one of several tables). */
enum {
	C_END = 0,
	C_U16,
	C_U32,
	C_STRING,
	C_GUID,
	C_BLOB,
	C_TABLE = 0x40,  /* | table */
	C_CODED = 0x80,  /* | enum coded */
};

enum coded {
	TYPE_DEF_OR_REF, HAS_CONSTANT, HAS_CUSTOM_ATTRIBUTE, HAS_FIELD_MARSHAL, HAS_DECL_SECURITY,
	MEMBER_REF_PARENT, HAS_SEMANTICS, METHOD_DEF_OR_REF, MEMBER_FORWARDED, IMPLEMENTATION,
	CUSTOM_ATTRIBUTE_TYPE, RESOLUTION_SCOPE, TYPE_OR_METHOD_DEF, HAS_CUSTOM_DEBUG_INFORMATION,
	_CODED_MAX,
};

#define T(t) (C_TABLE | (t))
#define K(k) (C_CODED | (k))
#define NONE 0xff  /* a tag value no table has */

/* The tables a coded index can name, in tag order (ECMA-335 II.24.2.6,
 * and the Portable PDB spec for HasCustomDebugInformation). */
static const struct {
	uint8_t bits, n;
	uint8_t tables[27];
} coded[_CODED_MAX] = {
	[TYPE_DEF_OR_REF] = { 2, 3, { 0x02, 0x01, 0x1b } },
	[HAS_CONSTANT] = { 2, 3, { 0x04, 0x08, 0x17 } },
	[HAS_CUSTOM_ATTRIBUTE] = { 5, 22, { 0x06, 0x04, 0x01, 0x02, 0x08, 0x09, 0x0a, 0x00, 0x0e, 0x17, 0x14,
					    0x11, 0x1a, 0x1b, 0x20, 0x23, 0x26, 0x27, 0x28, 0x2a, 0x2c, 0x2b } },
	[HAS_FIELD_MARSHAL] = { 1, 2, { 0x04, 0x08 } },
	[HAS_DECL_SECURITY] = { 2, 3, { 0x02, 0x06, 0x20 } },
	[MEMBER_REF_PARENT] = { 3, 5, { 0x02, 0x01, 0x1a, 0x06, 0x1b } },
	[HAS_SEMANTICS] = { 1, 2, { 0x14, 0x17 } },
	[METHOD_DEF_OR_REF] = { 1, 2, { 0x06, 0x0a } },
	[MEMBER_FORWARDED] = { 1, 2, { 0x04, 0x06 } },
	[IMPLEMENTATION] = { 2, 3, { 0x26, 0x23, 0x27 } },
	[CUSTOM_ATTRIBUTE_TYPE] = { 3, 5, { NONE, NONE, 0x06, 0x0a, NONE } },
	[RESOLUTION_SCOPE] = { 2, 4, { 0x00, 0x1a, 0x23, 0x01 } },
	[TYPE_OR_METHOD_DEF] = { 1, 2, { 0x02, 0x06 } },
	[HAS_CUSTOM_DEBUG_INFORMATION] = { 5, 27, { 0x06, 0x04, 0x01, 0x02, 0x08, 0x09, 0x0a, 0x00, 0x0e, 0x17,
						    0x14, 0x11, 0x1a, 0x1b, 0x20, 0x23, 0x26, 0x27, 0x28, 0x2a,
						    0x2c, 0x2b, 0x30, 0x32, 0x33, 0x34, 0x35 } },
};

/* Every table's columns (ECMA-335 II.22; Portable PDB v1.0 for 0x30-0x37). */
static const uint8_t schema[MD_TABLE_MAX][MD_MAX_COLUMNS + 1] = {
	[0x00] = { C_U16, C_STRING, C_GUID, C_GUID, C_GUID },                     /* Module */
	[0x01] = { K(RESOLUTION_SCOPE), C_STRING, C_STRING },                     /* TypeRef */
	[0x02] = { C_U32, C_STRING, C_STRING, K(TYPE_DEF_OR_REF), T(0x04), T(0x06) }, /* TypeDef */
	[0x03] = { T(0x04) },                                                     /* FieldPtr */
	[0x04] = { C_U16, C_STRING, C_BLOB },                                     /* Field */
	[0x05] = { T(0x06) },                                                     /* MethodPtr */
	[0x06] = { C_U32, C_U16, C_U16, C_STRING, C_BLOB, T(0x08) },              /* MethodDef */
	[0x07] = { T(0x08) },                                                     /* ParamPtr */
	[0x08] = { C_U16, C_U16, C_STRING },                                      /* Param */
	[0x09] = { T(0x02), K(TYPE_DEF_OR_REF) },                                 /* InterfaceImpl */
	[0x0a] = { K(MEMBER_REF_PARENT), C_STRING, C_BLOB },                      /* MemberRef */
	[0x0b] = { C_U16, K(HAS_CONSTANT), C_BLOB },                              /* Constant */
	[0x0c] = { K(HAS_CUSTOM_ATTRIBUTE), K(CUSTOM_ATTRIBUTE_TYPE), C_BLOB },   /* CustomAttribute */
	[0x0d] = { K(HAS_FIELD_MARSHAL), C_BLOB },                                /* FieldMarshal */
	[0x0e] = { C_U16, K(HAS_DECL_SECURITY), C_BLOB },                         /* DeclSecurity */
	[0x0f] = { C_U16, C_U32, T(0x02) },                                       /* ClassLayout */
	[0x10] = { C_U32, T(0x04) },                                              /* FieldLayout */
	[0x11] = { C_BLOB },                                                      /* StandAloneSig */
	[0x12] = { T(0x02), T(0x14) },                                            /* EventMap */
	[0x13] = { T(0x14) },                                                     /* EventPtr */
	[0x14] = { C_U16, C_STRING, K(TYPE_DEF_OR_REF) },                         /* Event */
	[0x15] = { T(0x02), T(0x17) },                                            /* PropertyMap */
	[0x16] = { T(0x17) },                                                     /* PropertyPtr */
	[0x17] = { C_U16, C_STRING, C_BLOB },                                     /* Property */
	[0x18] = { C_U16, T(0x06), K(HAS_SEMANTICS) },                            /* MethodSemantics */
	[0x19] = { T(0x02), K(METHOD_DEF_OR_REF), K(METHOD_DEF_OR_REF) },         /* MethodImpl */
	[0x1a] = { C_STRING },                                                    /* ModuleRef */
	[0x1b] = { C_BLOB },                                                      /* TypeSpec */
	[0x1c] = { C_U16, K(MEMBER_FORWARDED), C_STRING, T(0x1a) },               /* ImplMap */
	[0x1d] = { C_U32, T(0x04) },                                              /* FieldRVA */
	[0x1e] = { C_U32, C_U32 },                                                /* EncLog */
	[0x1f] = { C_U32 },                                                       /* EncMap */
	[0x20] = { C_U32, C_U16, C_U16, C_U16, C_U16, C_U32, C_BLOB, C_STRING, C_STRING }, /* Assembly */
	[0x21] = { C_U32 },                                                       /* AssemblyProcessor */
	[0x22] = { C_U32, C_U32, C_U32 },                                         /* AssemblyOS */
	[0x23] = { C_U16, C_U16, C_U16, C_U16, C_U32, C_BLOB, C_STRING, C_STRING, C_BLOB }, /* AssemblyRef */
	[0x24] = { C_U32, T(0x23) },                                              /* AssemblyRefProcessor */
	[0x25] = { C_U32, C_U32, C_U32, T(0x23) },                                /* AssemblyRefOS */
	[0x26] = { C_U32, C_STRING, C_BLOB },                                     /* File */
	[0x27] = { C_U32, C_U32, C_STRING, C_STRING, K(IMPLEMENTATION) },         /* ExportedType */
	[0x28] = { C_U32, C_U32, C_STRING, K(IMPLEMENTATION) },                   /* ManifestResource */
	[0x29] = { T(0x02), T(0x02) },                                            /* NestedClass */
	[0x2a] = { C_U16, C_U16, K(TYPE_OR_METHOD_DEF), C_STRING },               /* GenericParam */
	[0x2b] = { K(METHOD_DEF_OR_REF), C_BLOB },                                /* MethodSpec */
	[0x2c] = { T(0x2a), K(TYPE_DEF_OR_REF) },                                 /* GenericParamConstraint */
	[0x30] = { C_BLOB, C_GUID, C_BLOB, C_GUID },                              /* Document */
	[0x31] = { T(0x30), C_BLOB },                                             /* MethodDebugInformation */
	[0x32] = { T(0x06), T(0x35), T(0x33), T(0x34), C_U32, C_U32 },            /* LocalScope */
	[0x33] = { C_U16, C_U16, C_STRING },                                      /* LocalVariable */
	[0x34] = { C_STRING, C_BLOB },                                            /* LocalConstant */
	[0x35] = { T(0x35), C_BLOB },                                             /* ImportScope */
	[0x36] = { T(0x06), T(0x06) },                                            /* StateMachineMethod */
	[0x37] = { K(HAS_CUSTOM_DEBUG_INFORMATION), C_GUID, C_BLOB },             /* CustomDebugInformation */
};

/* The width of column kind C in MD (heap flags and row counts known). */
static unsigned column_width(const struct md *md, uint8_t heaps, uint8_t c)
{
	if (c & C_CODED) {
		unsigned k = c & ~C_CODED;
		uint32_t max = 0;

		for (unsigned i = 0; i < coded[k].n; i++)
			if (coded[k].tables[i] != NONE && md->rows[coded[k].tables[i]] > max)
				max = md->rows[coded[k].tables[i]];
		return max < (UINT32_C(1) << (16 - coded[k].bits)) ? 2 : 4;
	}
	if (c & C_TABLE)
		return md->rows[c & ~C_TABLE] > 0xffff ? 4 : 2;
	switch (c) {
	case C_U16: return 2;
	case C_U32: return 4;
	case C_STRING: return heaps & HEAP_STRINGS_BIG ? 4 : 2;
	case C_GUID: return heaps & HEAP_GUID_BIG ? 4 : 2;
	case C_BLOB: return heaps & HEAP_BLOB_BIG ? 4 : 2;
	}
	return 0;
}

/* ---- the root and its streams ---------------------------------------- */

/* The #Pdb stream's row counts of the assembly's tables (Portable PDB
 * v1.0: id, entry point, a table mask, then a count per set bit). */
static int pdb_external_rows(struct md *md)
{
	uint64_t mask;
	size_t pos = 32;

	if (md->pdb_size < 32)
		return -EBADMSG;
	mask = le64(md->pdb + 24);
	for (unsigned t = 0; t < 64; t++) {
		if (!(mask & (UINT64_C(1) << t)))
			continue;
		if (!inside(md->pdb_size, pos, 4))
			return -EBADMSG;
		if (t < MD_TABLE_MAX)
			md->rows[t] = le32(md->pdb + pos);
		pos += 4;
	}
	return 0;
}

/* Find the streams of the root M (SIZE bytes). */
static int find_streams(const uint8_t *m, size_t size, struct md *md, const uint8_t **tables, uint32_t *tables_size)
{
	uint32_t len, nstreams;
	size_t pos;

	if (size < 16 || le32(m) != 0x424a5342)  /* "BSJB" */
		return -EBADMSG;
	len = le32(m + 12);
	if (!inside(size, 16, (uint64_t)len + 4))
		return -EBADMSG;
	pos = 16 + (size_t)len;
	nstreams = le16(m + pos + 2);
	pos += 4;
	for (uint32_t i = 0; i < nstreams; i++) {
		uint32_t off, ssize;
		const char *name;
		size_t nlen;

		if (!inside(size, pos, 8))
			return -EBADMSG;
		off = le32(m + pos);
		ssize = le32(m + pos + 4);
		name = (const char *)m + pos + 8;
		nlen = strnlen(name, size - pos - 8 < 32 ? size - pos - 8 : 32);
		if (nlen >= 32 || pos + 8 + nlen >= size)
			return -EBADMSG;
		pos += 8 + ((nlen + 4) & ~(size_t)3);
		if (!inside(size, off, ssize))
			return -EBADMSG;
		if (streq(name, "#~"))
			*tables = m + off, *tables_size = ssize;
		else if (streq(name, "#Strings"))
			md->strings = m + off, md->strings_size = ssize;
		else if (streq(name, "#Blob"))
			md->blob = m + off, md->blob_size = ssize;
		else if (streq(name, "#GUID"))
			md->guid = m + off, md->guid_size = ssize;
		else if (streq(name, "#Pdb"))
			md->pdb = m + off, md->pdb_size = ssize;
		else if (streq(name, "#-"))
			return -EOPNOTSUPP;  /* uncompressed (edit-and-continue) tables */
	}
	if (!*tables || *tables_size < 24)
		return -EBADMSG;
	return 0;
}

/* Parse the metadata root at ROOT (SIZE bytes) into MD. */
int md_open_root(const void *root, size_t size, struct md *md)
{
	const uint8_t *tables = NULL;
	uint32_t tables_size = 0;
	uint64_t valid;
	uint8_t heaps;
	size_t pos = 24;
	int k;

	*md = (struct md){};
	k = find_streams(root, size, md, &tables, &tables_size);
	if (k < 0)
		return k;
	if (md->pdb && (k = pdb_external_rows(md)) < 0)
		return k;
	heaps = tables[6];
	valid = le64(tables + 8);
	md->sorted = le64(tables + 16);
	for (unsigned t = 0; t < 64; t++) {
		if (!(valid & (UINT64_C(1) << t)))
			continue;
		if (!inside(tables_size, pos, 4))
			return -EBADMSG;
		if (t >= MD_TABLE_MAX || !schema[t][0]) {
			if (le32(tables + pos))
				return -EBADMSG;  /* rows of a table we cannot size */
		} else
			md->rows[t] = le32(tables + pos);
		pos += 4;
	}
	if (heaps & HEAP_EXTRA_DATA)
		pos += 4;
	for (unsigned t = 0; t < MD_TABLE_MAX; t++) {
		unsigned c, off = 0;

		for (c = 0; c < MD_MAX_COLUMNS && schema[t][c]; c++) {
			md->column[t][c] = (uint8_t)off;
			off += column_width(md, heaps, schema[t][c]);
		}
		md->column[t][c] = (uint8_t)off;
		md->columns[t] = (uint8_t)c;
	}
	/* the tables follow one another, in order, those present only */
	for (unsigned t = 0; t < MD_TABLE_MAX; t++) {
		uint64_t bytes;

		if (!(valid & (UINT64_C(1) << t)) || !md->rows[t])
			continue;
		bytes = (uint64_t)md->rows[t] * md->column[t][md->columns[t]];
		if (!inside(tables_size, pos, bytes))
			return -EBADMSG;
		md->table[t] = tables + pos;
		pos += bytes;
	}
	return 0;
}

/* ---- PE images ------------------------------------------------------- */

/* Check the PE headers of IMG and that it is a CLI image. */
int md_pe_open(const void *image, size_t size, enum md_layout layout, struct md_pe *pe)
{
	const uint8_t *img = image;
	uint32_t lfanew, optsize;

	*pe = (struct md_pe){ .img = img, .size = size, .layout = layout };
	if (size < 0x40 || img[0] != 'M' || img[1] != 'Z')
		return -EOPNOTSUPP;
	lfanew = le32(img + 0x3c);
	if (!inside(size, lfanew, 24) || memcmp(img + lfanew, "PE\0\0", 4) != 0)
		return -EOPNOTSUPP;
	pe->nsec = le16(img + lfanew + 6);
	optsize = le16(img + lfanew + 20);
	pe->opt = (size_t)lfanew + 24;
	if (!inside(size, pe->opt, optsize) || optsize < 2)
		return -EBADMSG;
	switch (le16(img + pe->opt)) {
	case 0x10b: pe->dd = 96; break;
	case 0x20b: pe->dd = 112; break;
	default: return -EBADMSG;
	}
	if (optsize < pe->dd)
		return -EBADMSG;
	pe->nrva = le32(img + pe->opt + pe->dd - 4);
	if (pe->nrva > (optsize - pe->dd) / 8)
		return -EBADMSG;
	pe->sec = pe->opt + optsize;
	if (!inside(size, pe->sec, (uint64_t)pe->nsec * 40))
		return -EBADMSG;
	if (pe->nrva <= 14 || le32(img + pe->opt + pe->dd + 14 * 8) == 0)
		return -EOPNOTSUPP;  /* no CLI header: not a .NET assembly */
	return 0;
}

/* Data directory I: its RVA and size (0, 0: none). */
void md_pe_dir(const struct md_pe *pe, unsigned i, uint32_t *rva, uint32_t *size)
{
	const uint8_t *d = pe->img + pe->opt + pe->dd + (size_t)i * 8;

	*rva = i < pe->nrva ? le32(d) : 0;
	*size = i < pe->nrva ? le32(d + 4) : 0;
}

/* Where LEN bytes at RVA lie: inside one section's data. */
int md_pe_rva(const struct md_pe *pe, uint32_t rva, uint32_t len, size_t *off)
{
	for (uint32_t i = 0; i < pe->nsec; i++) {
		const uint8_t *s = pe->img + pe->sec + (size_t)i * 40;
		uint32_t va = le32(s + 12), raw = le32(s + 16), ptr = le32(s + 20);
		uint64_t at;

		if (rva < va || rva - va >= raw)
			continue;
		if (len > raw - (rva - va))
			return -EBADMSG;
		at = pe->layout == MD_LAYOUT_MAPPED ? rva : (uint64_t)ptr + (rva - va);
		if (!inside(pe->size, at, len))
			return -EBADMSG;
		*off = (size_t)at;
		return 0;
	}
	return -EBADMSG;
}

/* Open IMAGE's PE headers into PE and find its CLI header (data
 * directory 14), at least LEN bytes of it, at *COFF. */
static int cli_header(const void *image, size_t size, enum md_layout layout, size_t len, struct md_pe *pe,
		      size_t *coff)
{
	uint32_t crva, csize;
	int k;

	k = md_pe_open(image, size, layout, pe);
	if (k < 0)
		return k;
	md_pe_dir(pe, 14, &crva, &csize);
	if (csize < len || md_pe_rva(pe, crva, len, coff) < 0)
		return -EBADMSG;
	return 0;
}

/* The metadata of the CLI image IMAGE. */
int md_open_image(const void *image, size_t size, enum md_layout layout, struct md *md)
{
	uint32_t mrva, msize;
	size_t coff, moff;
	struct md_pe pe;
	int k;

	k = cli_header(image, size, layout, 16, &pe, &coff);
	if (k < 0)
		return k;
	mrva = le32(pe.img + coff + 8);
	msize = le32(pe.img + coff + 12);
	if (md_pe_rva(&pe, mrva, msize, &moff) < 0)
		return -EBADMSG;
	return md_open_root(pe.img + moff, msize, md);
}

/* Does the CLI image carry ReadyToRun code: the CLI header's managed
 * native header is a READYTORUN_HEADER ("RTR\0", then its major version). */
int md_ready_to_run(const void *image, size_t size, enum md_layout layout, unsigned *major)
{
	uint32_t nrva, nsize;
	size_t coff, noff;
	struct md_pe pe;
	int k;

	*major = 0;
	k = cli_header(image, size, layout, 72, &pe, &coff);
	if (k < 0)
		return k;
	nrva = le32(pe.img + coff + 64);
	nsize = le32(pe.img + coff + 68);
	if (nrva == 0 || nsize < 8)
		return 0;
	if (md_pe_rva(&pe, nrva, 8, &noff) < 0)
		return -EBADMSG;
	if (le32(pe.img + noff) != 0x00525452u)
		return 0;
	*major = le16(pe.img + noff + 4);
	return 1;
}

/* The extent of an image the runtime loaded, from its headers. */
int md_loaded_image_size(const void *base, enum md_layout layout, size_t *size)
{
	const uint8_t *img = base;
	uint32_t lfanew, nsec, optsize;
	uint64_t end;

	if (!img || img[0] != 'M' || img[1] != 'Z')
		return -EOPNOTSUPP;
	/* only the headers are read, which the runtime checked; they must lie in
	 * the first page */
	lfanew = le32(img + 0x3c);
	if (lfanew > 4096 - 24 || memcmp(img + lfanew, "PE\0\0", 4) != 0)
		return -EOPNOTSUPP;
	nsec = le16(img + lfanew + 6);
	optsize = le16(img + lfanew + 20);
	if (optsize < 64 || (uint64_t)lfanew + 24 + optsize + (uint64_t)nsec * 40 > 4096)
		return -EBADMSG;
	end = le32(img + lfanew + 24 + 60);  /* SizeOfHeaders */
	if (layout == MD_LAYOUT_MAPPED)
		end = le32(img + lfanew + 24 + 56);  /* SizeOfImage */
	else
		for (uint32_t i = 0; i < nsec; i++) {
			const uint8_t *s = img + lfanew + 24 + optsize + (size_t)i * 40;
			uint64_t e = (uint64_t)le32(s + 20) + le32(s + 16);

			if (e > end)
				end = e;
		}
	if (end == 0 || end > MAX_IMAGE)
		return -EBADMSG;
	*size = (size_t)end;
	return 0;
}

/* ---- rows and heaps -------------------------------------------------- */

/* Column COL of row ROW of TABLE. */
int md_get(const struct md *md, enum md_table table, uint32_t row, unsigned col, uint32_t *value)
{
	const uint8_t *p;

	if ((unsigned)table >= MD_TABLE_MAX || !md->table[table] || row == 0 || row > md->rows[table] ||
	    col >= md->columns[table])
		return -EBADMSG;
	p = md->table[table] + (size_t)(row - 1) * md->column[table][md->columns[table]] + md->column[table][col];
	*value = md->column[table][col + 1] - md->column[table][col] == 2 ? le16(p) : le32(p);
	return 0;
}

/* The string at IDX of the #Strings heap, NUL-terminated inside it. */
const char *md_string(const struct md *md, uint32_t idx)
{
	if (!md->strings || idx >= md->strings_size ||
	    !memchr(md->strings + idx, 0, md->strings_size - idx))
		return NULL;
	return (const char *)md->strings + idx;
}

/* The GUID at IDX (1-based) of the #GUID heap. */
const uint8_t *md_guid(const struct md *md, uint32_t idx)
{
	if (!md->guid || idx == 0 || !inside(md->guid_size, (uint64_t)(idx - 1) * 16, 16))
		return NULL;
	return md->guid + (size_t)(idx - 1) * 16;
}

/* The blob at IDX: a compressed length (II.24.2.4), then the bytes. */
int md_blob(const struct md *md, uint32_t idx, const uint8_t **data, uint32_t *len)
{
	const uint8_t *p;
	uint32_t n, w;

	if (!md->blob || idx >= md->blob_size)
		return -EBADMSG;
	p = md->blob + idx;
	if ((p[0] & 0x80) == 0)
		n = p[0], w = 1;
	else if ((p[0] & 0xc0) == 0x80 && inside(md->blob_size, idx, 2))
		n = (uint32_t)(p[0] & 0x3f) << 8 | p[1], w = 2;
	else if ((p[0] & 0xe0) == 0xc0 && inside(md->blob_size, idx, 4))
		n = (uint32_t)(p[0] & 0x1f) << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3], w = 4;
	else
		return -EBADMSG;
	if (!inside(md->blob_size, (uint64_t)idx + w, n))
		return -EBADMSG;
	*data = p + w;
	*len = n;
	return 0;
}

/* ---- lookups --------------------------------------------------------- */

/* The MVID: the Mvid of the Module row. */
int md_mvid(const struct md *md, uint8_t mvid[16])
{
	const uint8_t *g;
	uint32_t idx;

	if (md_get(md, MD_MODULE, 1, 2, &idx) < 0 || !(g = md_guid(md, idx)))
		return -EBADMSG;
	memcpy(mvid, g, 16);
	return 0;
}

/* The rows [*FIRST, *END) of LIST that TYPE's column COL starts (a
 * TypeDef's fields or methods run to the next TypeDef's start). */
static int type_range(const struct md *md, uint32_t type, unsigned col, enum md_table list, uint32_t *first,
		      uint32_t *end)
{
	uint32_t last = md->rows[list] + 1;

	if (md_get(md, MD_TYPEDEF, type, col, first) < 0)
		return -EBADMSG;
	if (type < md->rows[MD_TYPEDEF] && md_get(md, MD_TYPEDEF, type + 1, col, end) < 0)
		return -EBADMSG;
	if (type == md->rows[MD_TYPEDEF])
		*end = last;
	if (*end > last)
		*end = last;
	if (*first > *end)
		*first = *end;
	return 0;
}

/* The TypeDef row enclosing the nested TYPE: NestedClass is sorted by its
 * first column when the header says so, else searched through. */
static uint32_t enclosing(const struct md *md, uint32_t type)
{
	uint32_t lo = 1, hi = md->rows[MD_NESTEDCLASS], v;

	if (md->sorted & (UINT64_C(1) << MD_NESTEDCLASS)) {
		while (lo <= hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (md_get(md, MD_NESTEDCLASS, mid, 0, &v) < 0)
				return 0;
			if (v == type)
				return md_get(md, MD_NESTEDCLASS, mid, 1, &v) < 0 ? 0 : v;
			if (v < type)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
		return 0;
	}
	for (uint32_t r = 1; r <= md->rows[MD_NESTEDCLASS]; r++)
		if (md_get(md, MD_NESTEDCLASS, r, 0, &v) == 0 && v == type)
			return md_get(md, MD_NESTEDCLASS, r, 1, &v) < 0 ? 0 : v;
	return 0;
}

/* Append S to B with what reflection escapes in a type name (the
 * characters of its own syntax) behind a backslash. */
static void add_escaped(struct strbuf *b, const char *s)
{
	for (const char *p = s; *p; p++) {
		if (strchr(",+&*[]\\", *p))
			strbuf_add(b, "\\", 1);
		strbuf_add(b, p, 1);
	}
}

/* "Namespace.Name", "Outer+Inner": the name of TYPE, DEPTH levels in.  A
 * type nested in itself, or deeper than MAX_NESTING, is a loop: malformed. */
static int type_name(const struct md *md, uint32_t type, int depth, struct strbuf *b)
{
	uint32_t flags, name_idx, ns_idx, parent;
	const char *name, *ns;
	int k;

	if (md_get(md, MD_TYPEDEF, type, 0, &flags) < 0 || md_get(md, MD_TYPEDEF, type, 1, &name_idx) < 0 ||
	    md_get(md, MD_TYPEDEF, type, 2, &ns_idx) < 0)
		return -EBADMSG;
	name = md_string(md, name_idx);
	ns = md_string(md, ns_idx);
	if (!name || !ns)
		return -EBADMSG;
	if ((flags & TYPE_VISIBILITY_MASK) >= TYPE_NESTED_PUBLIC && (parent = enclosing(md, type))) {
		if (parent == type || depth >= MAX_NESTING)
			return -EBADMSG;
		k = type_name(md, parent, depth + 1, b);
		if (k < 0)
			return k;
		strbuf_add(b, "+", 1);
	}
	if (*ns) {
		add_escaped(b, ns);
		strbuf_add(b, ".", 1);
	}
	add_escaped(b, name);
	return 0;
}

int md_type_name(const struct md *md, uint32_t type, char **ret)
{
	_cleanup_(strbuf_free) struct strbuf b = {};
	int k = type_name(md, type, 0, &b);

	if (k < 0)
		return k;
	strbuf_add(&b, "", 0);
	if (b.oom)
		return -ENOMEM;
	*ret = strbuf_steal(&b);
	return 0;
}

/* METHOD's name and owner: the last TypeDef whose MethodList starts at or
 * before it (the lists are in row order; types without methods share their
 * start with the next type). */
int md_method(const struct md *md, uint32_t method, const char **name, uint32_t *type)
{
	uint32_t idx, lo = 1, hi = md->rows[MD_TYPEDEF], found = 0, v;

	if (md_get(md, MD_METHODDEF, method, 3, &idx) < 0 || !(*name = md_string(md, idx)))
		return -EBADMSG;
	while (lo <= hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (md_get(md, MD_TYPEDEF, mid, 5, &v) < 0)
			return -EBADMSG;
		if (v <= method)
			found = mid, lo = mid + 1;
		else
			hi = mid - 1;
	}
	*type = found;
	return 0;
}

/* "Namespace.Type.Method". */
int md_method_name(const struct md *md, uint32_t method, char **ret)
{
	_cleanup_free_ char *type_s = NULL;
	const char *name;
	uint32_t type;
	int k;

	k = md_method(md, method, &name, &type);
	if (k < 0)
		return k;
	if (type && (k = md_type_name(md, type, &type_s)) < 0)
		return k;
	if (asprintf(ret, "%s%s%s", type_s ? type_s : "", type_s ? "." : "", name) < 0)
		return -ENOMEM;
	return 0;
}

/* The top-level TypeDef NAMESPACE.NAME. */
int md_find_type(const struct md *md, const char *namespace, const char *name, uint32_t *type)
{
	for (uint32_t r = 1; r <= md->rows[MD_TYPEDEF]; r++) {
		uint32_t flags, n, ns;
		const char *s;

		if (md_get(md, MD_TYPEDEF, r, 0, &flags) < 0 || md_get(md, MD_TYPEDEF, r, 1, &n) < 0 ||
		    md_get(md, MD_TYPEDEF, r, 2, &ns) < 0)
			return -EBADMSG;
		if ((flags & TYPE_VISIBILITY_MASK) >= TYPE_NESTED_PUBLIC)
			continue;
		if ((s = md_string(md, n)) && streq(s, name) && (s = md_string(md, ns)) && streq(s, namespace)) {
			*type = r;
			return 0;
		}
	}
	return -ENOENT;
}

/* The row of TABLE named NAME (column NAME_COL) among TYPE's own, whose
 * list starts at TypeDef column LIST_COL. */
static int find_member(const struct md *md, uint32_t type, unsigned list_col, enum md_table table, unsigned name_col,
		       const char *name, uint32_t *row)
{
	uint32_t first, end, n;
	const char *s;

	if (type_range(md, type, list_col, table, &first, &end) < 0)
		return -EBADMSG;
	for (uint32_t r = first; r < end; r++) {
		if (md_get(md, table, r, name_col, &n) < 0)
			return -EBADMSG;
		if ((s = md_string(md, n)) && streq(s, name)) {
			*row = r;
			return 0;
		}
	}
	return -ENOENT;
}

/* The Field named NAME among TYPE's own. */
int md_find_field(const struct md *md, uint32_t type, const char *name, uint32_t *field)
{
	return find_member(md, type, 4, MD_FIELD, 1, name, field);
}

/* The first MethodDef named NAME among TYPE's own. */
int md_find_method(const struct md *md, uint32_t type, const char *name, uint32_t *method)
{
	return find_member(md, type, 5, MD_METHODDEF, 3, name, method);
}

/* Is CTOR (a CustomAttributeType coded index) a constructor of the type
 * NAMESPACE.NAME? */
static int ctor_of(const struct md *md, uint32_t ctor, const char *namespace, const char *name)
{
	enum md_table table = MD_TYPEDEF;
	uint32_t type, cls, n, ns;
	const char *s, *t;

	switch (ctor & 7) {
	case 2: /* a MethodDef: the attribute is defined in this module */
		if (md_method(md, ctor >> 3, &s, &type) < 0)
			return -EBADMSG;
		break;
	case 3: /* a MemberRef: its class (MemberRefParent) is a TypeDef or a TypeRef */
		if (md_get(md, MD_MEMBERREF, ctor >> 3, 0, &cls) < 0)
			return -EBADMSG;
		if ((cls & 7) > 1)
			return 0; /* a method or a TypeSpec (a generic attribute) */
		table = (cls & 7) ? MD_TYPEREF : MD_TYPEDEF;
		type = cls >> 3;
		break;
	default:
		return -EBADMSG;
	}
	if (!type)
		return 0;
	/* TypeDef and TypeRef alike: the name, then the namespace */
	if (md_get(md, table, type, 1, &n) < 0 || md_get(md, table, type, 2, &ns) < 0 || !(s = md_string(md, n)) ||
	    !(t = md_string(md, ns)))
		return -EBADMSG;
	return streq(s, name) && streq(t, namespace);
}

/* CustomAttribute is sorted by its Parent (a HasCustomAttribute coded
 * index) when the header says so, else searched through. */
int md_has_attribute(const struct md *md, uint32_t token, const char *namespace, const char *name)
{
	const enum coded k = HAS_CUSTOM_ATTRIBUTE;
	bool sorted = md->sorted & (UINT64_C(1) << MD_CUSTOMATTRIBUTE);
	uint32_t want, lo = 1, hi = md->rows[MD_CUSTOMATTRIBUTE] + 1, v, ctor;
	unsigned tag;
	int r;

	for (tag = 0; tag < coded[k].n && coded[k].tables[tag] != MD_TOKEN_TABLE(token); tag++)
		;
	if (tag == coded[k].n || !MD_TOKEN_ROW(token) || MD_TOKEN_ROW(token) > md->rows[MD_TOKEN_TABLE(token)] ||
	    MD_TOKEN_ROW(token) >= (UINT32_C(1) << (32 - coded[k].bits)))
		return -EBADMSG;
	want = MD_TOKEN_ROW(token) << coded[k].bits | tag;
	while (sorted && lo < hi) { /* the first row whose Parent is WANT or more */
		uint32_t mid = lo + (hi - lo) / 2;

		if (md_get(md, MD_CUSTOMATTRIBUTE, mid, 0, &v) < 0)
			return -EBADMSG;
		if (v < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t row = lo; row <= md->rows[MD_CUSTOMATTRIBUTE]; row++) {
		if (md_get(md, MD_CUSTOMATTRIBUTE, row, 0, &v) < 0)
			return -EBADMSG;
		if (v != want) {
			if (sorted)
				break;
			continue;
		}
		if (md_get(md, MD_CUSTOMATTRIBUTE, row, 1, &ctor) < 0)
			return -EBADMSG;
		r = ctor_of(md, ctor, namespace, name);
		if (r)
			return r;
	}
	return 0;
}

/* The name of the TypeDef or TypeRef named by a TypeDefOrRef coded index
 * CODED (no namespace), or NULL. */
static const char *def_or_ref_name(const struct md *md, uint32_t coded_idx)
{
	uint32_t n;

	if ((coded_idx & 3) > 1 || !(coded_idx >> 2))
		return NULL;
	if (md_get(md, (coded_idx & 3) ? MD_TYPEREF : MD_TYPEDEF, coded_idx >> 2, 1, &n) < 0)
		return NULL;
	return md_string(md, n);
}

int md_member_ref(const struct md *md, uint32_t row, const char **name, const char **type)
{
	uint32_t cls, n, sig;
	const uint8_t *b;
	uint32_t len;

	*name = *type = NULL;
	if (md_get(md, MD_MEMBERREF, row, 0, &cls) < 0 || md_get(md, MD_MEMBERREF, row, 1, &n) < 0 ||
	    !(*name = md_string(md, n)))
		return -EBADMSG;
	switch (cls & 7) {
	case 0: /* TypeDef */
	case 1: /* TypeRef */
		*type = def_or_ref_name(md, (cls >> 3) << 2 | (cls & 7));
		break;
	case 4: /* TypeSpec: GENERICINST (CLASS | VALUETYPE) TypeDefOrRef ... */
		if (md_get(md, MD_TYPESPEC, cls >> 3, 0, &sig) < 0 || md_blob(md, sig, &b, &len) < 0)
			return -EBADMSG;
		if (len >= 3 && b[0] == 0x15 && (b[1] == 0x11 || b[1] == 0x12)) {
			uint32_t v;

			if (!(b[2] & 0x80))
				v = b[2];
			else if ((b[2] & 0xc0) == 0x80 && len >= 4)
				v = (uint32_t)(b[2] & 0x3f) << 8 | b[3];
			else if ((b[2] & 0xe0) == 0xc0 && len >= 6)
				v = (uint32_t)(b[2] & 0x1f) << 24 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 8 | b[5];
			else
				return 0;
			*type = def_or_ref_name(md, v);
		}
		break;
	default:
		break;
	}
	return 0;
}
