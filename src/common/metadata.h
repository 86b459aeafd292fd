/* SPDX-License-Identifier: MIT */
/*
 * ECMA-335 metadata read in place: the PE headers that find it, the
 * metadata root and its streams, the #~ tables (every table's row size
 * from one column table) and the few lookups the tracer needs: the names
 * of types and methods, a field or a type by name, the MVID.
 *
 * Why not IMetaDataImport: once a profiler asks GetModuleMetaData for a
 * module, CoreCLR converts that module's metadata to its read-write form
 * for the rest of the process, and the runtime's own lookups in it (custom
 * attributes while formatting a stack trace, reflection) get slower.  The
 * tables are in the image the runtime mapped anyway; reading them costs a
 * few loads and leaves the runtime as it was.
 *
 * Everything read is bounds-checked against the image or the stream that
 * holds it: a malformed image gives -EBADMSG, never a read outside it.
 * A struct md only points into the image; it owns nothing.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tables (ECMA-335 II.22), by number. */
enum md_table {
	MD_MODULE = 0x00,
	MD_TYPEREF = 0x01,
	MD_TYPEDEF = 0x02,
	MD_FIELD = 0x04,
	MD_METHODDEF = 0x06,
	MD_MEMBERREF = 0x0a,
	MD_CUSTOMATTRIBUTE = 0x0c,
	MD_TYPESPEC = 0x1b,
	MD_NESTEDCLASS = 0x29,
	MD_DOCUMENT = 0x30,         /* Portable PDB tables */
	MD_METHODDEBUGINFO = 0x31,
	MD_TABLE_MAX = 0x38,
};

/* A metadata token: the table in the top byte, the row (1-based) below. */
#define MD_TOKEN(table, row) ((uint32_t)(table) << 24 | (uint32_t)(row))
#define MD_TOKEN_TABLE(token) ((uint32_t)(token) >> 24)
#define MD_TOKEN_ROW(token) ((uint32_t)(token) & 0xffffffu)

/* How an image lies in memory: as the file (offsets are file offsets), or
 * mapped by sections (an RVA is the offset from the base). */
enum md_layout { MD_LAYOUT_FILE, MD_LAYOUT_MAPPED };

#define MD_MAX_COLUMNS 9

struct md {
	const uint8_t *strings, *guid, *blob, *pdb;
	uint32_t strings_size, guid_size, blob_size, pdb_size;
	const uint8_t *table[MD_TABLE_MAX];  /* first row, or NULL */
	uint32_t rows[MD_TABLE_MAX];         /* here, or (a PDB) in the assembly */
	/* where each column starts in a row; [ncolumns] is the row size */
	uint8_t column[MD_TABLE_MAX][MD_MAX_COLUMNS + 1];
	uint8_t columns[MD_TABLE_MAX];
	uint64_t sorted;                     /* the header's Sorted bits */
};

/* The PE headers of an image, checked (what the PDB lookup reads too). */
struct md_pe {
	const uint8_t *img;
	size_t size, opt, sec;
	uint32_t dd, nrva, nsec;
	enum md_layout layout;
};

/* Check the PE headers of IMG (SIZE bytes, laid out as LAYOUT) and that it
 * is a CLI image.  0, -EOPNOTSUPP (not PE, or no CLI header), -EBADMSG. */
int md_pe_open(const void *img, size_t size, enum md_layout layout, struct md_pe *pe);

/* Data directory I: its RVA and size (0, 0: none). */
void md_pe_dir(const struct md_pe *pe, unsigned i, uint32_t *rva, uint32_t *size);

/* Where LEN bytes at RVA lie in the image (inside one section's data when
 * laid out as the file).  0 and *OFF, or -EBADMSG. */
int md_pe_rva(const struct md_pe *pe, uint32_t rva, uint32_t len, size_t *off);

/* The metadata root (starting "BSJB") of SIZE bytes at ROOT.  A portable
 * PDB's root has a #Pdb stream, whose row counts of the assembly's tables
 * size the indices into them.  0, -EBADMSG (malformed), -EOPNOTSUPP
 * (uncompressed "#-" tables, written by edit-and-continue). */
int md_open_root(const void *root, size_t size, struct md *md);

/* The metadata of the CLI image IMAGE (SIZE bytes, laid out as LAYOUT).
 * 0, -EOPNOTSUPP (not a PE image, or no CLI header), -EBADMSG. */
int md_open_image(const void *image, size_t size, enum md_layout layout, struct md *md);

/* Whether the CLI image IMAGE carries ReadyToRun code: its CLI header's
 * managed native header is a READYTORUN_HEADER (signature "RTR"), whose
 * major version goes to *MAJOR.  1, 0 (IL only), -EOPNOTSUPP, -EBADMSG. */
int md_ready_to_run(const void *image, size_t size, enum md_layout layout, unsigned *major);

/* How many bytes from BASE an image the runtime loaded spans, from its own
 * headers: SizeOfImage when mapped, the end of the last section's data as a
 * file.  Only for an image the runtime has checked and keeps mapped. */
int md_loaded_image_size(const void *base, enum md_layout layout, size_t *size);

/* Column COL (0-based, as in ECMA-335 II.22) of row ROW (1-based) of TABLE.
 * 0 and *VALUE, or -EBADMSG (no such row or column). */
int md_get(const struct md *md, enum md_table table, uint32_t row, unsigned col, uint32_t *value);

/* The NUL-terminated UTF-8 string at IDX of the #Strings heap, or NULL. */
const char *md_string(const struct md *md, uint32_t idx);

/* The 16 bytes at IDX (1-based) of the #GUID heap, or NULL. */
const uint8_t *md_guid(const struct md *md, uint32_t idx);

/* The blob at IDX of the #Blob heap.  0, or -EBADMSG. */
int md_blob(const struct md *md, uint32_t idx, const uint8_t **data, uint32_t *len);

/* The module's MVID (16 bytes, as stored).  0 or -EBADMSG. */
int md_mvid(const struct md *md, uint8_t mvid[16]);

/* The name of TypeDef row TYPE as the runtime's reflection writes it
 * (Type.FullName of a type definition): "Namespace.Name", nested types
 * "Namespace.Outer+Inner", the characters of type-name syntax (, + & * [ ]
 * and backslash) escaped with a backslash.  Malloc'd into *RET.  0,
 * -EBADMSG (also: a type nested in itself, or a loop), -ENOMEM. */
int md_type_name(const struct md *md, uint32_t type, char **ret);

/* The MethodDef row METHOD: its name (in the heap, not copied) and the
 * TypeDef row that owns it (0: none).  0 or -EBADMSG. */
int md_method(const struct md *md, uint32_t method, const char **name, uint32_t *type);

/* "Namespace.Type.Method" of MethodDef row METHOD, nested types joined by
 * '+' (what the tracer writes for a function).  Malloc'd.  0, -EBADMSG,
 * -ENOMEM. */
int md_method_name(const struct md *md, uint32_t method, char **ret);

/* The TypeDef row of the top-level type NAMESPACE.NAME.  0, -ENOENT,
 * -EBADMSG. */
int md_find_type(const struct md *md, const char *namespace, const char *name, uint32_t *type);

/* The Field row named NAME among TypeDef row TYPE's own fields.  0,
 * -ENOENT, -EBADMSG. */
int md_find_field(const struct md *md, uint32_t type, const char *name, uint32_t *field);

/* The first MethodDef row named NAME among TypeDef row TYPE's own methods
 * (overloads: the first in the table).  0, -ENOENT, -EBADMSG. */
int md_find_method(const struct md *md, uint32_t type, const char *name, uint32_t *method);

/* Does the row of TOKEN (a MethodDef, TypeDef, ... token) carry a custom
 * attribute of the top-level type NAMESPACE.NAME (defined in this module
 * or referenced)?  1, 0, -EBADMSG (also: no such row, or a table
 * that attributes cannot name). */
int md_has_attribute(const struct md *md, uint32_t token, const char *namespace, const char *name);

/* MemberRef row ROW: its name and the name (no namespace) of the type it
 * belongs to: a TypeDef or TypeRef, or the generic type of a TypeSpec
 * instantiation (NULL when it is something else); both in the heaps, not
 * copied.  0 or -EBADMSG. */
int md_member_ref(const struct md *md, uint32_t row, const char **name, const char **type);
