/* SPDX-License-Identifier: MIT */
/*
 * The file sink compresses the trace files it rotates out with zstd, and
 * the readers of the CLI decompress them.  libzstd is loaded on first use,
 * not linked: most traces never rotate, and a traced program should not
 * carry a library it never uses (as zlib-lazy.c for zlib).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include "common/lazy-lib.h"
#include "common/util.h"
#include "common/zstd-lazy.h"

/* the soname of libzstd 1.x, the ABI of the symbols */
#define ZSTD_SONAME "libzstd.so.1"

static struct {
	ZSTD_CCtx *(*createCCtx)(void);
	size_t (*freeCCtx)(ZSTD_CCtx *c);
	size_t (*setParameter)(ZSTD_CCtx *c, ZSTD_cParameter p, int value);
	size_t (*compressStream2)(ZSTD_CCtx *c, ZSTD_outBuffer *out, ZSTD_inBuffer *in, ZSTD_EndDirective end);
	unsigned (*isError)(size_t code);
} zs;
static pthread_once_t zs_once = PTHREAD_ONCE_INIT;

/* Open libzstd and find its functions (all or none). */
static void zs_load(void)
{
	static const char *const names[] = { "ZSTD_createCCtx", "ZSTD_freeCCtx", "ZSTD_CCtx_setParameter",
					      "ZSTD_compressStream2", "ZSTD_isError" };
	void **const slots[] = { (void **)&zs.createCCtx, (void **)&zs.freeCCtx, (void **)&zs.setParameter,
				 (void **)&zs.compressStream2, (void **)&zs.isError };

	(void)lazy_lib_load(ZSTD_SONAME, names, slots, ELEMENTSOF(names));
}

#define IN_SIZE (128 * 1024)
#define OUT_SIZE (128 * 1024)

int zstd_compress_fd(int in, int out, int level)
{
	ZSTD_CCtx *c;
	char *ib, *ob;
	bool last = false;
	int r = 0;

	pthread_once(&zs_once, zs_load);
	if (!zs.createCCtx)
		return -ENOSYS;
	c = zs.createCCtx();
	ib = malloc(IN_SIZE);
	ob = malloc(OUT_SIZE);
	if (!c || !ib || !ob) {
		r = -ENOMEM;
		goto out;
	}
	if (zs.isError(zs.setParameter(c, ZSTD_c_compressionLevel, level)) ||
	    zs.isError(zs.setParameter(c, ZSTD_c_checksumFlag, 1))) {
		r = -EIO;
		goto out;
	}
	while (!last && r == 0) {
		ssize_t n = read(in, ib, IN_SIZE);
		ZSTD_inBuffer zi = { ib, n > 0 ? (size_t)n : 0, 0 };
		size_t left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		last = n == 0;
		do {
			ZSTD_outBuffer zo = { ob, OUT_SIZE, 0 };

			left = zs.compressStream2(c, &zo, &zi, last ? ZSTD_e_end : ZSTD_e_continue);
			if (zs.isError(left)) {
				r = -EIO;
				break;
			}
			r = write_all(out, ob, zo.pos);
		} while (r == 0 && (last ? left != 0 : zi.pos < zi.size));
	}
out:
	if (c)
		zs.freeCCtx(c);
	free(ib);
	free(ob);
	return r;
}

/* --- decompression, for the readers: one stream, bounded memory --------- */

/* The largest window a frame may ask for: 2^27 (128 MiB), the limit of
 * `zstd -d` without --memory, so what zstdcat reads we read; the file
 * sink writes level 1 frames, whose window is 512 KiB. */
#define ZD_WINDOW_LOG_MAX 27
#define ZD_IN_SIZE (128 * 1024)

static struct {
	ZSTD_DCtx *(*createDCtx)(void);
	size_t (*freeDCtx)(ZSTD_DCtx *d);
	size_t (*setParameter)(ZSTD_DCtx *d, ZSTD_dParameter p, int value);
	size_t (*decompressStream)(ZSTD_DCtx *d, ZSTD_outBuffer *out, ZSTD_inBuffer *in);
	unsigned (*isError)(size_t code);
	const char *(*getErrorName)(size_t code);
} zd;
static pthread_once_t zd_once = PTHREAD_ONCE_INIT;

/* Open libzstd for decompression (all or none). */
static void zd_load(void)
{
	static const char *const names[] = { "ZSTD_createDCtx", "ZSTD_freeDCtx", "ZSTD_DCtx_setParameter",
					      "ZSTD_decompressStream", "ZSTD_isError", "ZSTD_getErrorName" };
	void **const slots[] = { (void **)&zd.createDCtx, (void **)&zd.freeDCtx, (void **)&zd.setParameter,
				 (void **)&zd.decompressStream, (void **)&zd.isError, (void **)&zd.getErrorName };

	(void)lazy_lib_load(ZSTD_SONAME, names, slots, ELEMENTSOF(names));
}

struct zstd_in {
	ZSTD_DCtx *d;
	char *buf;
	size_t len, pos;   /* compressed input: buf[pos..len) */
	size_t hint;       /* decompressStream's last answer: 0 between frames */
	uint64_t frames;   /* frames ended */
	bool eof, full;    /* input at its end; the last call filled the output */
	const char *error; /* what was wrong with the data */
};

bool zstd_can_decompress(void)
{
	pthread_once(&zd_once, zd_load);
	return zd.createDCtx != NULL;
}

int zstd_in_new(struct zstd_in **ret)
{
	struct zstd_in *z;

	if (!zstd_can_decompress())
		return -ENOSYS;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->d = zd.createDCtx();
	z->buf = malloc(ZD_IN_SIZE);
	if (!z->d || !z->buf || zd.isError(zd.setParameter(z->d, ZSTD_d_windowLogMax, ZD_WINDOW_LOG_MAX))) {
		zstd_in_free(z);
		return -ENOMEM;
	}
	*ret = z;
	return 0;
}

ssize_t zstd_in_read(struct zstd_in *z, int fd, void *out, size_t size)
{
	for (;;) {
		ZSTD_outBuffer o = { out, size, 0 };
		ZSTD_inBuffer in;
		size_t k;

		if (z->error)
			return -EBADMSG;
		if (z->pos == z->len && !z->eof) {
			ssize_t n = read(fd, z->buf, ZD_IN_SIZE);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			z->pos = 0;
			z->len = (size_t)n;
			z->eof = n == 0;
		}
		if (z->pos == z->len && !z->full) { /* all read, all given out */
			if (z->hint == 0 && z->frames > 0)
				return 0;
			z->error = z->frames == 0 && z->hint == 0 ? "no zstd frame (an empty file)" :
								      "truncated (the last zstd frame is cut short)";
			return -EBADMSG;
		}
		in = (ZSTD_inBuffer){ z->buf, z->len, z->pos };
		k = zd.decompressStream(z->d, &o, &in);
		z->pos = in.pos;
		if (zd.isError(k)) {
			z->error = zd.getErrorName(k);
			return -EBADMSG;
		}
		if (k == 0 && (in.pos > 0 || o.pos > 0 || z->hint != 0))
			z->frames++;
		z->hint = k;
		z->full = o.pos == o.size;
		if (o.pos > 0)
			return (ssize_t)o.pos;
	}
}

const char *zstd_in_error(const struct zstd_in *z)
{
	return z && z->error ? z->error : NULL;
}

void zstd_in_free(struct zstd_in *z)
{
	if (!z)
		return;
	if (z->d)
		zd.freeDCtx(z->d);
	free(z->buf);
	free(z);
}
