/* SPDX-License-Identifier: MIT */
/* FILE.<pid>.pending: the shared mapping that holds a trace file's
 * unwritten records (its two buffers), so that they survive a death without
 * a flush. */
#pragma once

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PENDING_MAGIC "CLRTPND2"
#define PENDING_DATA_OFFSET 4096

struct pending_header {
	char magic[8];
	int32_t pid;
	uint32_t n_bufs;
	uint64_t buf_size;
	/* per buffer: bytes of whole lines, and when it started filling (the
	 * lower gen holds the older records) */
	_Atomic uint64_t used[2];
	uint64_t gen[2];
};

/* Create and map PATH.<pid>.pending with two buffers of SIZE bytes. */
int pending_create(const char *path, size_t size, struct pending_header **ret, char **ret_path);
static inline char *pending_data(struct pending_header *h, int i)
{
	return (char *)h + PENDING_DATA_OFFSET + (size_t)i * h->buf_size;
}
static inline void pending_set_used(struct pending_header *h, int i, size_t used)
{
	atomic_store_explicit(&h->used[i], used, memory_order_release);
}
/* Unmap and delete the mirror (its records are in the trace). */
void pending_remove(struct pending_header *h, const char *pending_path);
/* Append the records of each TRACE.<pid>.pending that TRACE lacks, then
 * delete them.  Returns the number of records recovered (0 if none) or -errno. */
int pending_recover(const char *trace);
