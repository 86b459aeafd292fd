/* SPDX-License-Identifier: MIT */
/* zstd compression and decompression, libzstd loaded on first use
 * (zstd-lazy.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Compress what is left of the file IN (read to its end) into OUT as one
 * zstd frame (zstdcat reads it) at LEVEL.  0, -ENOSYS when libzstd cannot
 * be loaded, -EIO when it fails, or the -errno of a read or write. */
int zstd_compress_fd(int in, int out, int level);

/* A zstd stream read from a file descriptor, decompressed a buffer at a
 * time: 128 KiB of input and libzstd's context (its window at most
 * 128 MiB, the limit of `zstd -d`), whatever the file's size. */
struct zstd_in;
/* Can libzstd be loaded (it is, the first time)? */
bool zstd_can_decompress(void);
/* 0, -ENOSYS without libzstd, -ENOMEM. */
int zstd_in_new(struct zstd_in **ret);
/* Decompress the next bytes read from FD into OUT (SIZE > 0): how many,
 * 0 at the end of the last frame, -EBADMSG for data that is not zstd or
 * is cut short (zstd_in_error says what), or the -errno of a read. */
ssize_t zstd_in_read(struct zstd_in *z, int fd, void *out, size_t size);
/* What was wrong with the data after -EBADMSG, else NULL. */
const char *zstd_in_error(const struct zstd_in *z);
void zstd_in_free(struct zstd_in *z);
