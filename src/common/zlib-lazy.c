/* SPDX-License-Identifier: MIT */
/*
 * The zlib functions clrtrace calls, loading zlib on first use.  Only the
 * PDB reader inflates (a PDB embedded in an assembly), but linking zlib
 * loads it into every clrtrace command: about 0.3 ms of CPU time per
 * process on a small VM, and `clrtrace run` is a process of every traced
 * run (DESIGN.md, Measured decisions).  These definitions stand in for the
 * real functions (pdb.c calls them unchanged) and forward to them; without
 * zlib, inflateInit2_ fails with Z_VERSION_ERROR and the PDB is not read.
 */
#include <pthread.h>
#include <stdbool.h>
#include <zlib.h>

#include "common/lazy-lib.h"

/* the soname of zlib 1.x, the ABI of the symbols */
#define Z_SONAME "libz.so.1"

static struct {
	int (*inflateInit2_)(z_streamp strm, int window_bits, const char *version, int stream_size);
	int (*inflate)(z_streamp strm, int flush);
	int (*inflateEnd)(z_streamp strm);
} z;
static pthread_once_t z_once = PTHREAD_ONCE_INIT;

/* Open zlib and find the three functions (all or none). */
static void z_load(void)
{
	static const char *const names[] = { "inflateInit2_", "inflate", "inflateEnd" };
	void **const slots[] = { (void **)&z.inflateInit2_, (void **)&z.inflate, (void **)&z.inflateEnd };

	(void)lazy_lib_load(Z_SONAME, names, slots, sizeof(names) / sizeof(names[0]));
}

/* inflateInit2(): load zlib first; Z_VERSION_ERROR without it. */
int inflateInit2_(z_streamp strm, int window_bits, const char *version, int stream_size)
{
	pthread_once(&z_once, z_load);
	return z.inflateInit2_ ? z.inflateInit2_(strm, window_bits, version, stream_size) : Z_VERSION_ERROR;
}

/* Only called after inflateInit2_ succeeded: zlib is loaded. */
int inflate(z_streamp strm, int flush)
{
	return z.inflate ? z.inflate(strm, flush) : Z_STREAM_ERROR;
}

/* As inflate. */
int inflateEnd(z_streamp strm)
{
	return z.inflateEnd ? z.inflateEnd(strm) : Z_STREAM_ERROR;
}
