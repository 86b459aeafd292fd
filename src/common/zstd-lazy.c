/* SPDX-License-Identifier: MIT */
/*
 * The file sink compresses the trace files it rotates out with zstd.
 * libzstd is loaded on the first rotation, not linked: most traces never
 * rotate, and a traced program should not carry a library it never uses
 * (as zlib-lazy.c for zlib).
 */
#include <errno.h>
#include <pthread.h>
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
