/* SPDX-License-Identifier: MIT */
/*
 * A reader of portable PDBs: the ECMA-335 metadata layout (root, stream
 * headers, the #~ table stream, the #Blob and #GUID heaps), the Portable PDB
 * v1.0 #Pdb stream and its Document and MethodDebugInformation tables with
 * the sequence-point blobs; and of the PE parts that find the PDB (the
 * debug directory: CodeView entry 2, embedded PDB entry 17, PDB Checksum
 * entry 19).  Every offset
 * and size read from the file is checked against what holds it before use.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/pdb.h"
#include "common/sha256.h"
#include "common/strbuf.h"
#include "common/util.h"

#define TABLE_DOCUMENT 0x30
#define TABLE_METHOD_DEBUG_INFO 0x31
#define HEAP_STRINGS_BIG 0x01
#define HEAP_GUID_BIG 0x02
#define HEAP_BLOB_BIG 0x04
#define HEAP_EXTRA_DATA 0x40  /* one more u32 after the row counts */
#define DEBUG_CODEVIEW 2
#define DEBUG_EMBEDDED_PDB 17
#define DEBUG_PDB_CHECKSUM 19
#define MAX_CHECKSUMS 4  /* SHA-256 PDB Checksum entries kept (one per PDB built) */
#define PORTABLE_CODEVIEW_MINOR 0x504d  /* "PM": the CodeView entry of a portable PDB */

struct pdb {
	uint8_t *image;
	size_t size;
	uint8_t id[20];
	size_t id_offset;  /* where the id lies in IMAGE (the #Pdb stream) */
	const uint8_t *blob, *guid;
	uint32_t blob_size, guid_size;
	bool blob_big, guid_big;
	const uint8_t *documents, *methods;
	uint32_t document_rows, method_rows;
	uint32_t document_row_size, method_row_size;
	char **names;  /* Document row - 1 → name, filled on first use */
	bool *bad_names;
};

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Whether [OFF, OFF+LEN) lies inside SIZE bytes, without overflow. */
static inline bool inside(uint64_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

/* A bounded reader over a blob. */
struct rd {
	const uint8_t *p;
	size_t n, pos;
};

/* An ECMA-335 II.23.2 compressed unsigned integer. */
static int rd_uint(struct rd *r, uint32_t *v, unsigned *width)
{
	uint8_t b;

	if (r->pos >= r->n)
		return -EBADMSG;
	b = r->p[r->pos];
	if (!(b & 0x80)) {
		*v = b;
		*width = 1;
	} else if ((b & 0xc0) == 0x80) {
		if (r->n - r->pos < 2)
			return -EBADMSG;
		*v = (uint32_t)(b & 0x3f) << 8 | r->p[r->pos + 1];
		*width = 2;
	} else if ((b & 0xe0) == 0xc0) {
		if (r->n - r->pos < 4)
			return -EBADMSG;
		*v = (uint32_t)(b & 0x1f) << 24 | (uint32_t)r->p[r->pos + 1] << 16 |
		     (uint32_t)r->p[r->pos + 2] << 8 | r->p[r->pos + 3];
		*width = 4;
	} else
		return -EBADMSG;
	r->pos += *width;
	return 0;
}

static int rd_u(struct rd *r, uint32_t *v)
{
	unsigned w;

	return rd_uint(r, v, &w);
}

/* A compressed signed integer: the sign in the lowest bit, rotated. */
static int rd_s(struct rd *r, int32_t *v)
{
	uint32_t u;
	unsigned w;
	int k = rd_uint(r, &u, &w);

	if (k < 0)
		return k;
	if (!(u & 1))
		*v = (int32_t)(u >> 1);
	else {
		/* 6, 13 or 28 value bits: sign-extend from the top one */
		uint32_t bits = w == 1 ? 6 : w == 2 ? 13 : 28;

		*v = (int32_t)(u >> 1) - (int32_t)(UINT32_C(1) << bits);
	}
	return 0;
}

/* A heap or table index of 2 or 4 bytes. */
static inline uint32_t index_at(const uint8_t *p, bool big)
{
	return big ? le32(p) : le16(p);
}

/* The blob at IDX of the #Blob heap. */
static int blob_at(const struct pdb *p, uint32_t idx, const uint8_t **data, uint32_t *len)
{
	struct rd r = { p->blob, p->blob_size, idx };
	uint32_t n;
	int k;

	if (idx >= p->blob_size)
		return -EBADMSG;
	k = rd_u(&r, &n);
	if (k < 0)
		return k;
	if (!inside(p->blob_size, r.pos, n))
		return -EBADMSG;
	*data = p->blob + r.pos;
	*len = n;
	return 0;
}

/* Read the whole regular file PATH into a malloc'd buffer. */
static int read_file(const char *path, uint8_t **ret, size_t *size)
{
	_cleanup_free_ uint8_t *buf = NULL;
	struct stat st;
	size_t done = 0;
	int fd, k = 0;

	/* O_NONBLOCK: a path in a trace may name a FIFO, whose open would
	 * wait for a writer; only regular files are read */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		k = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		k = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if (st.st_size > (off_t)PDB_FILE_MAX) {
		k = -EFBIG;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		k = -ENOMEM;
		goto out;
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			k = -errno;
			goto out;
		}
		if (n == 0)
			break;  /* shrank while read: what is there is checked like the rest */
		done += (size_t)n;
	}
	*ret = TAKE_PTR(buf);
	*size = done;
out:
	close(fd);
	return k;
}

/* The streams of a metadata root (ECMA-335 II.24.2.1-2). */
struct md {
	const uint8_t *pdb, *tables, *blob, *guid;
	uint32_t pdb_size, tables_size, blob_size, guid_size;
};

/* Find the streams of the metadata root M (SIZE bytes). */
static int md_streams(const uint8_t *m, size_t size, struct md *md)
{
	uint32_t len, nstreams;
	size_t pos;

	*md = (struct md){};
	if (size < 4 || le32(m) != 0x424a5342)  /* "BSJB" */
		return -EBADMSG;
	if (!inside(size, 12, 4))
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
		if (streq(name, "#Pdb"))
			md->pdb = m + off, md->pdb_size = ssize;
		else if (streq(name, "#~"))
			md->tables = m + off, md->tables_size = ssize;
		else if (streq(name, "#Blob"))
			md->blob = m + off, md->blob_size = ssize;
		else if (streq(name, "#GUID"))
			md->guid = m + off, md->guid_size = ssize;
		else if (streq(name, "#-"))
			return -EOPNOTSUPP;  /* uncompressed (edit-and-continue) tables */
	}
	if (!md->tables || md->tables_size < 24)
		return -EBADMSG;
	return 0;
}

/* Parse the metadata of the PDB image held by P. */
static int parse_pdb(struct pdb *p)
{
	const uint8_t *tables;
	uint32_t tables_size;
	struct md md;
	int k;

	if (p->size >= 19 && memcmp(p->image, "Microsoft C/C++ MSF", 19) == 0)
		return -EOPNOTSUPP;  /* a Windows PDB */
	k = md_streams(p->image, p->size, &md);
	if (k < 0)
		return k;
	if (!md.pdb)
		return -EOPNOTSUPP;  /* metadata, but not a PDB's */
	if (md.pdb_size < 20)
		return -EBADMSG;
	memcpy(p->id, md.pdb, 20);
	p->id_offset = (size_t)(md.pdb - p->image);
	tables = md.tables, tables_size = md.tables_size;
	p->blob = md.blob, p->blob_size = md.blob_size;
	p->guid = md.guid, p->guid_size = md.guid_size;

	/* the table stream: header, row counts, then the tables in order */
	uint8_t heaps = tables[6];
	uint64_t valid = le64(tables + 8);
	uint32_t rows[64] = { 0 };
	size_t tpos = 24;

	p->guid_big = heaps & HEAP_GUID_BIG;
	p->blob_big = heaps & HEAP_BLOB_BIG;
	for (unsigned t = 0; t < 64; t++) {
		if (!(valid & (UINT64_C(1) << t)))
			continue;
		if (!inside(tables_size, tpos, 4))
			return -EBADMSG;
		rows[t] = le32(tables + tpos);
		tpos += 4;
		/* a PDB of its own holds no type-system tables (they live in the
		 * assembly); their sizes could not be known here anyway */
		if (t < TABLE_DOCUMENT && rows[t])
			return -EOPNOTSUPP;
	}
	if (heaps & HEAP_EXTRA_DATA)
		tpos += 4;
	p->document_rows = rows[TABLE_DOCUMENT];
	p->method_rows = rows[TABLE_METHOD_DEBUG_INFO];
	p->document_row_size = 2 * (p->blob_big ? 4 : 2) + 2 * (p->guid_big ? 4 : 2);
	p->method_row_size = (p->document_rows > 0xffff ? 4 : 2) + (p->blob_big ? 4 : 2);
	uint64_t dsize = (uint64_t)p->document_rows * p->document_row_size;
	uint64_t msize = (uint64_t)p->method_rows * p->method_row_size;
	if (!inside(tables_size, tpos, dsize) || !inside(tables_size, tpos + dsize, msize))
		return -EBADMSG;
	p->documents = tables + tpos;
	p->methods = tables + tpos + dsize;
	if (p->document_rows && !p->blob)
		return -EBADMSG;
	p->names = calloc(p->document_rows ? p->document_rows : 1, sizeof(char *));
	p->bad_names = calloc(p->document_rows ? p->document_rows : 1, sizeof(bool));
	if (!p->names || !p->bad_names)
		return -ENOMEM;
	return 0;
}

/* Take IMAGE (malloc'd, SIZE bytes) and parse it as a PDB. */
static int pdb_from_image(uint8_t *image, size_t size, struct pdb **ret)
{
	struct pdb *p = calloc(1, sizeof(*p));
	int k;

	if (!p) {
		free(image);
		return -ENOMEM;
	}
	p->image = image;
	p->size = size;
	k = parse_pdb(p);
	if (k < 0) {
		pdb_free(p);
		return k;
	}
	*ret = p;
	return 0;
}

/* Parse the PDB in DATA (copied). */
int pdb_open_memory(const void *data, size_t size, struct pdb **ret)
{
	uint8_t *image;

	if (size > PDB_FILE_MAX)
		return -EFBIG;
	image = malloc(size ? size : 1);
	if (!image)
		return -ENOMEM;
	memcpy(image, data, size);
	return pdb_from_image(image, size, ret);
}

/* Read and parse the PDB file PATH. */
int pdb_open_file(const char *path, struct pdb **ret)
{
	uint8_t *image = NULL;
	size_t size = 0;
	int k = read_file(path, &image, &size);

	if (k < 0)
		return k;
	return pdb_from_image(image, size, ret);
}

/* Free P and what it owns. */
void pdb_free(struct pdb *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; p->names && i < p->document_rows; i++)
		free(p->names[i]);
	free(p->names);
	free(p->bad_names);
	free(p->image);
	free(p);
}

const uint8_t *pdb_id(const struct pdb *p)
{
	return p->id;
}

uint32_t pdb_methods(const struct pdb *p)
{
	return p->method_rows;
}

/* The name of a Document row: a separator byte, then blob indices of the
 * parts, joined by it. */
const char *pdb_document(struct pdb *p, uint32_t doc)
{
	_cleanup_(strbuf_free) struct strbuf b = {};
	const uint8_t *row, *name;
	uint32_t len;
	struct rd r;
	char sep;

	if (doc == 0 || doc > p->document_rows || p->bad_names[doc - 1])
		return NULL;
	if (p->names[doc - 1])
		return p->names[doc - 1];
	row = p->documents + (size_t)(doc - 1) * p->document_row_size;
	if (blob_at(p, index_at(row, p->blob_big), &name, &len) < 0 || len < 1)
		goto bad;
	r = (struct rd){ name, len, 1 };
	sep = (char)name[0];
	if (name[0] & 0x80)
		goto bad;  /* the separator is one ASCII character */
	for (bool first = true; r.pos < r.n; first = false) {
		const uint8_t *part = NULL;
		uint32_t idx, plen = 0;

		if (rd_u(&r, &idx) < 0)
			goto bad;
		if (idx && blob_at(p, idx, &part, &plen) < 0)
			goto bad;
		if (plen && memchr(part, 0, plen))
			goto bad;
		if (!first && sep)
			strbuf_add(&b, &sep, 1);
		if (plen)
			strbuf_add(&b, (const char *)part, plen);
	}
	strbuf_add(&b, "", 0);
	if (b.oom)
		return NULL;
	p->names[doc - 1] = strbuf_steal(&b);
	return p->names[doc - 1];
bad:
	p->bad_names[doc - 1] = true;
	return NULL;
}

/* Grow *V (of *N, room *CAP) by one point. */
static int points_push(struct pdb_point **v, size_t *n, size_t *cap, const struct pdb_point *pt)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct pdb_point *nv;

		if (c > SIZE_MAX / sizeof(*nv))
			return -ENOMEM;
		nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = *pt;
	return 0;
}

/* Decode the sequence points of a method (Portable PDB v1.0, "Sequence
 * Points Blob"). */
int pdb_sequence_points(struct pdb *p, uint32_t method_token, struct pdb_point **points, size_t *n)
{
	_cleanup_free_ struct pdb_point *v = NULL;
	uint32_t rid = method_token & 0xffffff, doc, idx, len, u;
	bool first = true, first_visible = true;
	int64_t line = 0, column = 0;
	size_t cnt = 0, cap = 0;
	const uint8_t *row, *data;
	uint64_t il = 0;
	struct rd r;
	int k;

	*points = NULL;
	*n = 0;
	if (method_token >> 24 != 0x06 || rid == 0 || rid > p->method_rows)
		return -ENOENT;
	row = p->methods + (size_t)(rid - 1) * p->method_row_size;
	doc = index_at(row, p->document_rows > 0xffff);
	idx = index_at(row + (p->document_rows > 0xffff ? 4 : 2), p->blob_big);
	if (idx == 0)
		return -ENOENT;  /* a method with no sequence points */
	k = blob_at(p, idx, &data, &len);
	if (k < 0)
		return k;
	r = (struct rd){ data, len, 0 };
	if ((k = rd_u(&r, &u)) < 0)  /* LocalSignature */
		return k;
	if (doc == 0 && (k = rd_u(&r, &doc)) < 0)  /* InitialDocument */
		return k;
	while (r.pos < r.n) {
		struct pdb_point pt = {};
		uint32_t dil, dlines;
		int32_t dcols;

		if ((k = rd_u(&r, &dil)) < 0)
			return k;
		if (!first && dil == 0) {  /* a document record */
			if ((k = rd_u(&r, &doc)) < 0)
				return k;
			continue;
		}
		il = first ? dil : il + dil;
		if (il > UINT32_MAX)
			return -EBADMSG;
		first = false;
		if ((k = rd_u(&r, &dlines)) < 0)
			return k;
		if (dlines == 0) {
			if ((k = rd_u(&r, &u)) < 0)
				return k;
			dcols = (int32_t)u;
		} else if ((k = rd_s(&r, &dcols)) < 0)
			return k;
		pt.il_offset = (uint32_t)il;
		pt.document = doc;
		if (dlines == 0 && dcols == 0) {
			pt.start_line = pt.end_line = PDB_HIDDEN_LINE;
		} else {
			if (first_visible) {
				if ((k = rd_u(&r, &u)) < 0)
					return k;
				line = u;
				if ((k = rd_u(&r, &u)) < 0)
					return k;
				column = u;
			} else {
				int32_t dl, dc;

				if ((k = rd_s(&r, &dl)) < 0 || (k = rd_s(&r, &dc)) < 0)
					return k;
				line += dl;
				column += dc;
			}
			first_visible = false;
			/* the format's own limits: lines below 0x20000000, columns
			 * below 0x10000, never ending before they start */
			if (line < 0 || line >= 0x20000000 || line + dlines >= 0x20000000 ||
			    column < 0 || column >= 0x10000 || column + dcols < 0 || column + dcols >= 0x10000 ||
			    (dlines == 0 && dcols < 0))
				return -EBADMSG;
			pt.start_line = (uint32_t)line;
			pt.end_line = (uint32_t)(line + dlines);
			pt.start_column = (uint16_t)column;
			pt.end_column = (uint16_t)(column + dcols);
		}
		if ((k = points_push(&v, &cnt, &cap, &pt)) < 0)
			return k;
	}
	*points = TAKE_PTR(v);
	*n = cnt;
	return 0;
}

/* The line of an IL offset: the last visible point at or before it. */
int pdb_lookup(struct pdb *p, uint32_t method_token, uint32_t il_offset, const char **file, uint32_t *line)
{
	_cleanup_free_ struct pdb_point *v = NULL;
	const struct pdb_point *best = NULL;
	size_t n;
	int k;

	k = pdb_sequence_points(p, method_token, &v, &n);
	if (k < 0)
		return k;
	for (size_t i = 0; i < n && v[i].il_offset <= il_offset; i++)
		if (v[i].start_line != PDB_HIDDEN_LINE)
			best = &v[i];
	if (!best)
		return -ENOENT;
	*file = pdb_document(p, best->document);
	if (!*file)
		return -EBADMSG;
	*line = best->start_line;
	return 0;
}

/* ---- finding the PDB of an assembly --------------------------------- */

struct pe_debug {
	bool codeview, portable;
	uint8_t id[20];  /* CodeView GUID + the entry's stamp: the PDB id */
	char *pdb_name;  /* the file name in the CodeView entry, malloc'd */
	const uint8_t *embedded;  /* "MPDB" + size + deflate */
	uint32_t embedded_size;
	uint8_t sums[MAX_CHECKSUMS][SHA256_SIZE];  /* the SHA256 PDB Checksum entries */
	unsigned n_sums;
};

/* The headers of a PE image, checked. */
struct pe {
	const uint8_t *img;
	size_t size, opt, sec;
	uint32_t dd, nrva, nsec;
};

/* Check the PE headers of IMG and that it is a CLI image. */
static int pe_open(const uint8_t *img, size_t size, struct pe *pe)
{
	uint32_t lfanew, optsize;

	*pe = (struct pe){ .img = img, .size = size };
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
static void pe_dir(const struct pe *pe, unsigned i, uint32_t *rva, uint32_t *size)
{
	const uint8_t *d = pe->img + pe->opt + pe->dd + (size_t)i * 8;

	*rva = i < pe->nrva ? le32(d) : 0;
	*size = i < pe->nrva ? le32(d + 4) : 0;
}

/* The file offset of LEN bytes at RVA, all inside one section's data. */
static int pe_rva(const struct pe *pe, uint32_t rva, uint32_t len, size_t *off)
{
	for (uint32_t i = 0; i < pe->nsec; i++) {
		const uint8_t *s = pe->img + pe->sec + (size_t)i * 40;
		uint32_t va = le32(s + 12), raw = le32(s + 16), ptr = le32(s + 20);

		if (rva >= va && rva - va < raw) {
			if (len > raw - (rva - va) || !inside(pe->size, (uint64_t)ptr + (rva - va), len))
				return -EBADMSG;
			*off = (size_t)ptr + (rva - va);
			return 0;
		}
	}
	return -EBADMSG;
}

/* Find the debug directory entries of the PE image IMG. */
static int pe_debug_find(const uint8_t *img, size_t size, struct pe_debug *d)
{
	uint32_t drva, dsize;
	size_t doff;
	struct pe pe;
	int k;

	k = pe_open(img, size, &pe);
	if (k < 0)
		return k;
	pe_dir(&pe, 6, &drva, &dsize);
	if (drva == 0 || dsize == 0)
		return 0;  /* no debug directory */
	k = pe_rva(&pe, drva, dsize, &doff);
	if (k < 0)
		return k;
	for (uint32_t e = 0; e + 28 <= dsize; e += 28) {
		const uint8_t *ent = img + doff + e;
		uint32_t stamp = le32(ent + 4), type = le32(ent + 12);
		uint32_t dlen = le32(ent + 16), dptr = le32(ent + 24);

		if (type != DEBUG_CODEVIEW && type != DEBUG_EMBEDDED_PDB && type != DEBUG_PDB_CHECKSUM)
			continue;
		if (!inside(size, dptr, dlen))
			return -EBADMSG;
		if (type == DEBUG_CODEVIEW && !d->codeview) {
			const uint8_t *cv = img + dptr;
			const char *name, *slash;
			size_t nlen;

			if (dlen < 25 || memcmp(cv, "RSDS", 4) != 0)
				continue;
			nlen = strnlen((const char *)cv + 24, dlen - 24);
			if (nlen == dlen - 24)
				return -EBADMSG;  /* the path is not terminated */
			d->codeview = true;
			d->portable = le16(ent + 10) == PORTABLE_CODEVIEW_MINOR;
			memcpy(d->id, cv + 4, 16);
			d->id[16] = (uint8_t)stamp;
			d->id[17] = (uint8_t)(stamp >> 8);
			d->id[18] = (uint8_t)(stamp >> 16);
			d->id[19] = (uint8_t)(stamp >> 24);
			name = (const char *)cv + 24;
			/* built on Windows or here: the name after the last separator */
			slash = strrchr(name, '/');
			if (strrchr(name, '\\') > slash)
				slash = strrchr(name, '\\');
			d->pdb_name = strdup(slash ? slash + 1 : name);
			if (!d->pdb_name)
				return -ENOMEM;
		} else if (type == DEBUG_PDB_CHECKSUM) {
			/* "SHA256\0" and 32 bytes; other algorithms cannot be checked here */
			if (dlen == 7 + SHA256_SIZE && memcmp(img + dptr, "SHA256", 7) == 0 && d->n_sums < MAX_CHECKSUMS)
				memcpy(d->sums[d->n_sums++], img + dptr + 7, SHA256_SIZE);
		} else if (type == DEBUG_EMBEDDED_PDB && !d->embedded) {
			if (dlen < 8 || memcmp(img + dptr, "MPDB", 4) != 0)
				return -EBADMSG;
			d->embedded = img + dptr;
			d->embedded_size = dlen;
		}
	}
	return 0;
}

/* Inflate an embedded PDB ("MPDB", u32 size, raw deflate). */
static int inflate_embedded(const uint8_t *e, uint32_t esize, uint8_t **ret, size_t *rsize)
{
	_cleanup_free_ uint8_t *out = NULL;
	uint32_t usize = le32(e + 4);
	z_stream zs = {};
	int z;

	if (usize > PDB_FILE_MAX)
		return -EFBIG;
	out = malloc(usize ? usize : 1);
	if (!out)
		return -ENOMEM;
	if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)(uintptr_t)(e + 8);
	zs.avail_in = esize - 8;
	zs.next_out = out;
	zs.avail_out = usize;
	z = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	/* exactly the size announced, and a complete stream */
	if (z != Z_STREAM_END || zs.total_out != usize)
		return z == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
	*ret = TAKE_PTR(out);
	*rsize = usize;
	return 0;
}

/* PATH with its directory kept and its file name replaced by NAME. */
static char *sibling(const char *path, const char *name, bool replace_extension)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	struct strbuf b = {};

	if (replace_extension) {
		const char *dot = strrchr(base, '.');

		strbuf_add(&b, path, (size_t)((dot && dot != base ? dot : base + strlen(base)) - path));
	} else
		strbuf_add(&b, path, (size_t)(base - path));
	strbuf_puts(&b, name);
	if (b.oom) {
		strbuf_free(&b);
		return NULL;
	}
	return strbuf_steal(&b);
}

/* Whether P is the very PDB D's assembly was built with: its SHA-256 with
 * the PDB id zeroed is one of D's PDB Checksum entries (the Portable PDB
 * Checksum of the PE/COFF addendum).  No SHA256 entry: nothing to check. */
static bool checksum_matches(const struct pdb *p, const struct pe_debug *d)
{
	static const uint8_t zero_id[20];
	uint8_t sum[SHA256_SIZE];
	struct sha256 c;

	if (!d->n_sums)
		return true;
	sha256_init(&c);
	sha256_update(&c, p->image, p->id_offset);
	sha256_update(&c, zero_id, sizeof(zero_id));
	sha256_update(&c, p->image + p->id_offset + 20, p->size - p->id_offset - 20);
	sha256_final(&c, sum);
	for (unsigned i = 0; i < d->n_sums; i++)
		if (memcmp(sum, d->sums[i], sizeof(sum)) == 0)
			return true;
	return false;
}

/* Check that P (taken) is the PDB of D: its id, then its checksum. */
static int pdb_belongs(struct pdb *p, const struct pe_debug *d, struct pdb **ret)
{
	int k = 0;

	if (d->codeview && memcmp(pdb_id(p), d->id, sizeof(d->id)) != 0)
		k = -ESTALE;
	else if (!checksum_matches(p, d))
		k = -EBADE;
	if (k < 0) {
		pdb_free(p);
		return k;
	}
	*ret = p;
	return 0;
}

/* Open the PDB file CANDIDATE and check that it is the one of D. */
static int open_beside(const char *candidate, const struct pe_debug *d, struct pdb **ret)
{
	struct pdb *p = NULL;
	int k = pdb_open_file(candidate, &p);

	return k < 0 ? k : pdb_belongs(p, d, ret);
}

/* The embedded PDB of the assembly image IMG, else (PATH not NULL) the
 * matching one beside PATH. */
int pdb_open_for_image(const void *image, size_t size, const char *path, struct pdb **ret)
{
	const uint8_t *img = image;
	struct pe_debug d = {};
	int k;

	k = pe_debug_find(img, size, &d);
	if (k < 0)
		goto out;
	if (d.embedded) {
		uint8_t *pimg = NULL;
		size_t psize = 0;
		struct pdb *p = NULL;

		k = inflate_embedded(d.embedded, d.embedded_size, &pimg, &psize);
		if (k < 0)
			goto out;
		k = pdb_from_image(pimg, psize, &p);
		if (k < 0)
			goto out;
		k = pdb_belongs(p, &d, ret);
		if (k == -ESTALE)
			k = -EBADMSG;  /* an assembly that contradicts itself */
		goto out;
	}
	if (!d.codeview || !path) {
		k = -ENOENT;  /* the assembly names no PDB */
		goto out;
	}
	{
		_cleanup_free_ char *same = sibling(path, ".pdb", true);
		_cleanup_free_ char *named = sibling(path, d.pdb_name, false);

		if (!same || !named) {
			k = -ENOMEM;
			goto out;
		}
		k = open_beside(same, &d, ret);
		if (k == -ENOENT && !streq(same, named))
			k = open_beside(named, &d, ret);
	}
out:
	free(d.pdb_name);
	return k;
}

/* The embedded PDB of the assembly at PATH (of the build MVID), else the
 * matching one beside. */
int pdb_open_for_assembly(const char *path, const uint8_t *mvid, struct pdb **ret)
{
	_cleanup_free_ uint8_t *img = NULL;
	uint8_t now[16];
	size_t size = 0;
	int k;

	k = read_file(path, &img, &size);
	if (k < 0)
		return k;
	if (mvid) {
		k = pdb_image_mvid(img, size, now);
		if (k < 0)
			return k;
		if (memcmp(now, mvid, sizeof(now)) != 0)
			return -ESTALE;  /* rebuilt since: its PDB is another build's */
	}
	return pdb_open_for_image(img, size, path, ret);
}

/* The MVID of the assembly image IMG: the Mvid of its Module row, the
 * first row of the first table (no other table's size is needed). */
int pdb_image_mvid(const void *image, size_t size, uint8_t mvid[16])
{
	uint32_t crva, csize, mrva, msize, guid;
	size_t coff, moff, tpos = 24;
	struct pe pe;
	struct md md;
	uint8_t heaps;
	uint64_t valid;
	int k;

	k = pe_open(image, size, &pe);
	if (k < 0)
		return k;
	pe_dir(&pe, 14, &crva, &csize);
	if (csize < 16 || (k = pe_rva(&pe, crva, 16, &coff)) < 0)
		return -EBADMSG;
	mrva = le32(pe.img + coff + 8);
	msize = le32(pe.img + coff + 12);
	if ((k = pe_rva(&pe, mrva, msize, &moff)) < 0)
		return k;
	if ((k = md_streams(pe.img + moff, msize, &md)) < 0)
		return k;
	heaps = md.tables[6];
	valid = le64(md.tables + 8);
	if (!(valid & 1) || !md.guid)
		return -EBADMSG;
	if (!inside(md.tables_size, 24, 4) || le32(md.tables + 24) == 0)
		return -EBADMSG;  /* no Module row */
	tpos += 4 * (size_t)__builtin_popcountll(valid) + (heaps & HEAP_EXTRA_DATA ? 4 : 0);
	/* Generation (2), Name (a #Strings index), Mvid (a #GUID index) */
	tpos += 2 + (heaps & HEAP_STRINGS_BIG ? 4 : 2);
	if (!inside(md.tables_size, tpos, heaps & HEAP_GUID_BIG ? 4 : 2))
		return -EBADMSG;
	guid = index_at(md.tables + tpos, heaps & HEAP_GUID_BIG);
	if (guid == 0 || !inside(md.guid_size, (uint64_t)(guid - 1) * 16, 16))
		return -EBADMSG;
	memcpy(mvid, md.guid + (size_t)(guid - 1) * 16, 16);
	return 0;
}

/* The MVID of the assembly at PATH. */
int pdb_assembly_mvid(const char *path, uint8_t mvid[16])
{
	_cleanup_free_ uint8_t *img = NULL;
	size_t size = 0;
	int k = read_file(path, &img, &size);

	return k < 0 ? k : pdb_image_mvid(img, size, mvid);
}

/* ---- the cache ------------------------------------------------------- */

struct pdb_cache_entry {
	char *path;
	uint8_t mvid[16];
	bool has_mvid;
	struct pdb *pdb;
	int error;
};

struct pdb_cache {
	struct pdb_cache_entry *v;
	size_t n, cap;
};

struct pdb_cache *pdb_cache_new(void)
{
	return calloc(1, sizeof(struct pdb_cache));
}

void pdb_cache_free(struct pdb_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		pdb_free(c->v[i].pdb);
	}
	free(c->v);
	free(c);
}

/* The cached PDB of PATH (and MVID), opened on first use (a failure is
 * cached too). */
int pdb_cache_get(struct pdb_cache *c, const char *path, const uint8_t *mvid, struct pdb **ret)
{
	struct pdb_cache_entry *e;
	struct pdb *p = NULL;
	int k;

	for (size_t i = 0; i < c->n; i++)
		if (streq(c->v[i].path, path) && c->v[i].has_mvid == !!mvid &&
		    (!mvid || memcmp(c->v[i].mvid, mvid, 16) == 0)) {
			*ret = c->v[i].pdb;
			return c->v[i].error;
		}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		struct pdb_cache_entry *nv;

		if (cap > SIZE_MAX / sizeof(*nv))
			return -ENOMEM;
		nv = realloc(c->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = cap;
	}
	k = pdb_open_for_assembly(path, mvid, &p);
	if (k == -ENOMEM)
		return k;  /* not remembered: it may work later */
	e = &c->v[c->n];
	*e = (struct pdb_cache_entry){ .path = strdup(path), .has_mvid = mvid };
	if (!e->path) {
		pdb_free(p);
		return -ENOMEM;
	}
	if (mvid)
		memcpy(e->mvid, mvid, 16);
	e->pdb = k < 0 ? NULL : p;
	e->error = k < 0 ? k : 0;
	c->n++;
	*ret = e->pdb;
	return e->error;
}
