/* SPDX-License-Identifier: MIT */
/* FILE.<pid>.pending: the shared mapping that holds a trace file's unwritten
 * records, so that they survive a death without a flush. */
#pragma once

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PENDING_MAGIC "CLRTPND1"
#define PENDING_DATA_OFFSET 4096

struct pending_header {
	char magic[8];
	_Atomic uint64_t used; /* bytes of whole lines in the data area */
	int32_t pid;
};

/* Create and map PATH.<pid>.pending with room for SIZE bytes of records. */
int pending_create(const char *path, size_t size, struct pending_header **ret, char **ret_path);
static inline char *pending_data(struct pending_header *h)
{
	return (char *)h + PENDING_DATA_OFFSET;
}
static inline void pending_set_used(struct pending_header *h, size_t used)
{
	atomic_store_explicit(&h->used, used, memory_order_release);
}
/* Unmap and delete the mirror (its records are in the trace). */
void pending_remove(struct pending_header *h, size_t size, const char *pending_path);
/* Append the records of each TRACE.<pid>.pending that TRACE lacks, then
 * delete them.
 * Returns the number of records recovered (0 if none) or -errno. */
int pending_recover(const char *trace);
