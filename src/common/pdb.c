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

#include "common/bytes.h"
#include "common/metadata.h"
#include "common/pdb.h"
#include "common/sha256.h"
#include "common/strbuf.h"
#include "common/util.h"

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
	struct md md;  /* its tables and heaps, pointing into IMAGE */
	uint32_t document_rows, method_rows;
	char **names;  /* Document row - 1 → name, filled on first use */
	bool *bad_names;
};

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

/* Parse the metadata of the PDB image held by P. */
static int parse_pdb(struct pdb *p)
{
	int k;

	if (p->size >= 19 && memcmp(p->image, "Microsoft C/C++ MSF", 19) == 0)
		return -EOPNOTSUPP;  /* a Windows PDB */
	k = md_open_root(p->image, p->size, &p->md);
	if (k < 0)
		return k;
	if (!p->md.pdb)
		return -EOPNOTSUPP;  /* metadata, but not a PDB's */
	/* md_open_root took the #Pdb stream only if it holds the id (20 bytes) */
	memcpy(p->id, p->md.pdb, 20);
	p->id_offset = (size_t)(p->md.pdb - p->image);
	p->document_rows = p->md.table[MD_DOCUMENT] ? p->md.rows[MD_DOCUMENT] : 0;
	p->method_rows = p->md.table[MD_METHODDEBUGINFO] ? p->md.rows[MD_METHODDEBUGINFO] : 0;
	if (p->document_rows && !p->md.blob)
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
	const uint8_t *name;
	uint32_t name_idx, len;
	struct rd r;
	char sep;

	if (doc == 0 || doc > p->document_rows || p->bad_names[doc - 1])
		return NULL;
	if (p->names[doc - 1])
		return p->names[doc - 1];
	if (md_get(&p->md, MD_DOCUMENT, doc, 0, &name_idx) < 0 || md_blob(&p->md, name_idx, &name, &len) < 0 || len < 1)
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
		if (idx && md_blob(&p->md, idx, &part, &plen) < 0)
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
	uint32_t rid = MD_TOKEN_ROW(method_token), doc, idx, len, u;
	bool first = true, first_visible = true;
	int64_t line = 0, column = 0;
	size_t cnt = 0, cap = 0;
	const uint8_t *data;
	uint64_t il = 0;
	struct rd r;
	int k;

	*points = NULL;
	*n = 0;
	if (MD_TOKEN_TABLE(method_token) != MD_METHODDEF || rid == 0 || rid > p->method_rows)
		return -ENOENT;
	if (md_get(&p->md, MD_METHODDEBUGINFO, rid, 0, &doc) < 0 || md_get(&p->md, MD_METHODDEBUGINFO, rid, 1, &idx) < 0)
		return -EBADMSG;
	if (idx == 0)
		return -ENOENT;  /* a method with no sequence points */
	k = md_blob(&p->md, idx, &data, &len);
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

/* Find the debug directory entries of the PE image IMG. */
static int pe_debug_find(const uint8_t *img, size_t size, struct pe_debug *d)
{
	uint32_t drva, dsize;
	size_t doff;
	struct md_pe pe;
	int k;

	k = md_pe_open(img, size, MD_LAYOUT_FILE, &pe);
	if (k < 0)
		return k;
	md_pe_dir(&pe, 6, &drva, &dsize);
	if (drva == 0 || dsize == 0)
		return 0;  /* no debug directory */
	k = md_pe_rva(&pe, drva, dsize, &doff);
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

/* The MVID of the assembly image IMG. */
int pdb_image_mvid(const void *image, size_t size, uint8_t mvid[16])
{
	struct md md;
	int k = md_open_image(image, size, MD_LAYOUT_FILE, &md);

	return k < 0 ? k : md_mvid(&md, mvid);
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
