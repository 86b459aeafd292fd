/* SPDX-License-Identifier: MIT */
/* FILE.<pid>.pending: the shared mapping that holds a trace file's
 * unwritten records (its two buffers), so that they survive a death without
 * a flush. */
#pragma once

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PENDING_MAGIC "CLRTPND3"
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
	/* Who writes it.  The writer holds an flock(2) on the file for its
	 * whole life (locked = 1 when it could), so a merge can tell a live
	 * writer from a dead one in any PID namespace; where the pid means
	 * something (same boot and PID namespace), the start time is checked
	 * as well (a file system without locks, a descriptor closed by the
	 * program). */
	uint32_t locked;
	uint32_t reserved;
	uint64_t start_ticks; /* /proc/PID/stat starttime */
	uint64_t pid_ns;      /* inode of /proc/self/ns/pid */
	char boot_id[40];     /* /proc/sys/kernel/random/boot_id */
	/* the trace file's size when the writer opened it: its records lie
	 * beyond */
	uint64_t trace_off;
};

/* Create and map a mirror of the trace file PATH (open as TRACE_FD) with
 * two buffers of SIZE bytes: PATH.<pid>.pending, or PATH.<pid>.<n>.pending
 * when that name is taken (another run's unrecovered file is never
 * touched).  *RET_FD keeps the writer's lock. */
int pending_create(const char *path, int trace_fd, size_t size, struct pending_header **ret, char **ret_path,
		   int *ret_fd);
static inline char *pending_data(struct pending_header *h, int i)
{
	return (char *)h + PENDING_DATA_OFFSET + (size_t)i * h->buf_size;
}
static inline void pending_set_used(struct pending_header *h, int i, size_t used)
{
	atomic_store_explicit(&h->used[i], used, memory_order_release);
}
/* Delete, unmap and unlock the mirror (its records are in the trace). */
void pending_remove(struct pending_header *h, const char *pending_path, int fd);

/* Told about each mirror that was not merged (PENDING its path, WHY one
 * line; ERROR when it is an error rather than a file still in use). */
typedef void (*pending_say_fn)(void *ud, const char *pending, const char *why, int error);
/* Append the records of each dead writer's PATH.<pid>[.<n>].pending that
 * TRACE lacks, then delete it.  Files of live writers are left alone.
 * Returns the number of records recovered or -errno (-ENOENT: neither the
 * trace nor a mirror exists; -EBADMSG: some mirror was not merged, and SAY
 * was told why). */
int pending_recover(const char *trace, pending_say_fn say, void *ud);
