/* SPDX-License-Identifier: MIT */
/*
 * Source lines from portable PDBs (ECMA-335 metadata + the Portable PDB
 * v1.0 tables): a method token and an IL offset → file and line.  The PDB
 * is the one embedded in the assembly (debug directory entry 17) or the
 * `.pdb` beside it, whose id must match the assembly's CodeView entry (a
 * stale PDB gives no lines, never wrong ones) and, when the assembly has a
 * PDB Checksum entry (the compilers write one), whose SHA-256 with the id
 * zeroed must be that entry's (a PDB changed since gives no lines either).  Everything read from disk is
 * bounds-checked: a malformed file is an error, never a crash.
 *
 * Where lines are resolved: in the CLI, when it reads a trace.  The
 * profiler records, per frame, the module (path and MVID, once per module),
 * the method token and the IL offset: integers it has from the stack walk
 * anyway.  Reading a PDB in the host instead would put file I/O, zlib and
 * the allocations of a parse on the throwing thread at the first exception
 * of each module (measured: 33 µs for a 14 KB PDB beside the assembly,
 * 77 µs embedded; 0.2 ms and 2 ms for the 1.5 MB PDB of a 20,000-method
 * assembly), and any fault of the parser inside the user's program; in
 * the CLI it costs nothing at run time (a lookup is then ~170 ns) and a
 * malformed PDB can only cost lines.
 * The price: the lines need the same build's assembly and PDB where the
 * trace is read; the MVID says when that is no longer so (no lines, said).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pdb;

#define PDB_HIDDEN_LINE 0xfeefeeu  /* a sequence point with no source line */
#define PDB_FILE_MAX (512u << 20)  /* the largest assembly or PDB read */

/* The line information of the assembly at PATH: its embedded PDB, else the
 * matching `.pdb` beside it.  MVID (16 bytes, or NULL: any build): the
 * build the trace saw; an assembly rebuilt since gives -ESTALE.  0 and
 * *RET, or -ENOENT (no PDB: no lines), -ESTALE (another build, or a PDB
 * whose id is not the assembly's), -EBADE (a PDB with the assembly's id
 * but not the content it was built with: the SHA-256 of its PDB Checksum
 * debug directory entry disagrees), -EBADMSG (a malformed assembly or PDB),
 * -EOPNOTSUPP (not a portable PDB, or no CLI assembly), -EFBIG, -ENOMEM or
 * the -errno of opening or reading. */
int pdb_open_for_assembly(const char *path, const uint8_t *mvid, struct pdb **ret);

/* The same for an assembly image already in memory (SIZE bytes; PATH: where
 * it lies, for the PDB beside it; NULL: only an embedded PDB). */
int pdb_open_for_image(const void *image, size_t size, const char *path, struct pdb **ret);

/* The MVID (16 bytes, as stored) of the assembly at PATH or of an image in
 * memory: what a trace records of a module, so that lines are resolved
 * only against the very build that ran.  0, or -errno as above. */
int pdb_assembly_mvid(const char *path, uint8_t mvid[16]);
int pdb_image_mvid(const void *image, size_t size, uint8_t mvid[16]);

/* A PDB file read as it is, with no id check (tests, tools). */
int pdb_open_file(const char *path, struct pdb **ret);

/* A PDB image in memory (copied). */
int pdb_open_memory(const void *data, size_t size, struct pdb **ret);

void pdb_free(struct pdb *p);
static inline void pdb_freep(struct pdb **p)
{
	if (*p)
		pdb_free(*p);
}

/* The 20-byte PDB id (GUID + stamp). */
const uint8_t *pdb_id(const struct pdb *p);

/* The source line of IL_OFFSET in the method METHOD_TOKEN (0x06xxxxxx):
 * the last visible sequence point at or before it, as the runtime's own
 * stack traces do.  0 with *FILE (owned by P) and *LINE; -ENOENT: no line
 * there (no such method in the PDB, a hidden point, an offset before the
 * first point); -EBADMSG: the method's data is malformed. */
int pdb_lookup(struct pdb *p, uint32_t method_token, uint32_t il_offset, const char **file, uint32_t *line);

struct pdb_point {
	uint32_t il_offset;
	uint32_t start_line, end_line;  /* PDB_HIDDEN_LINE when hidden */
	uint16_t start_column, end_column;
	uint32_t document;  /* Document row */
};

/* The sequence points of METHOD_TOKEN, in IL order, into a malloc'd
 * *POINTS (*N of them; NULL and 0 when the method has none).  0, or
 * -ENOENT / -EBADMSG / -ENOMEM. */
int pdb_sequence_points(struct pdb *p, uint32_t method_token, struct pdb_point **points, size_t *n);

/* The name of Document row DOC (1-based; owned by P), or NULL. */
const char *pdb_document(struct pdb *p, uint32_t doc);

/* How many methods (MethodDebugInformation rows) the PDB describes. */
uint32_t pdb_methods(const struct pdb *p);

/* A cache of the PDBs of assemblies, by path: each is opened once, a
 * missing or bad one too (its error is remembered). */
struct pdb_cache;
struct pdb_cache *pdb_cache_new(void);
void pdb_cache_free(struct pdb_cache *c);
static inline void pdb_cache_freep(struct pdb_cache **c)
{
	pdb_cache_free(*c);
}
/* The PDB of the assembly at PATH (build MVID or NULL): as
 * pdb_open_for_assembly(), cached; *RET belongs to the cache. */
int pdb_cache_get(struct pdb_cache *c, const char *path, const uint8_t *mvid, struct pdb **ret);
