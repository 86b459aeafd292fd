/* SPDX-License-Identifier: MIT */
/* zstd compression, libzstd loaded on first use (zstd-lazy.c). */
#pragma once

/* Compress what is left of the file IN (read to its end) into OUT as one
 * zstd frame (zstdcat reads it) at LEVEL.  0, -ENOSYS when libzstd cannot
 * be loaded, -EIO when it fails, or the -errno of a read or write. */
int zstd_compress_fd(int in, int out, int level);
