/* SPDX-License-Identifier: MIT */
/* FILE.<pid>.pending: the shared mapping that holds a trace's staged
 * records (each thread's two buffers, sinks/stage.c) until they are in the
 * file, so that they survive a death without a flush. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PENDING_MAGIC "CLRTPND5"
/* The version before run_id, same layout otherwise (its run_id is zeros):
 * still merged by `recover`; never taken by `run` as one of its own. */
#define PENDING_MAGIC_V4 "CLRTPND4"
#define PENDING_DATA_OFFSET 4096
#define PENDING_MAX_BUFS 256 /* two halves for each of 128 staging slots */
/* Bytes of each buffer: a staging slot's half (sinks/stage.c) */
#define PENDING_BUF_SIZE (64 * 1024)
/* The largest mirror there is: the header page and every buffer in full.
 * A larger file is not one (a merge refuses it unread). */
#define PENDING_MAX_FILE ((uint64_t)PENDING_DATA_OFFSET + (uint64_t)PENDING_MAX_BUFS * PENDING_BUF_SIZE)
/* The largest seq the profiler gives (its numbering keeps two state bits
 * above it): a record with a larger one is damaged. */
#define PENDING_MAX_SEQ ((UINT64_C(1) << 62) - 1)

/* One staged record: this header, then the JSON line with its newline
 * (LEN bytes), padded to 8 bytes.  The header carries what the sinks need
 * besides the line, so that the writer never parses it. */
struct pending_rec {
	uint64_t seq;
	uint32_t len;   /* of the line, newline included */
	uint16_t event; /* enum ct_event */
	int16_t depth;
	int32_t tid;
	uint32_t magic; /* PENDING_REC_MAGIC: recovery checks the framing */
};
#define PENDING_REC_MAGIC 0x43524543u /* "CREC" */
/* The reason of the trace.dropped a merge writes for records a dying
 * process had numbered but not yet copied */
#define PENDING_DIED_REASON "the process died between numbering and writing them"
/* The most records a dead writer can have numbered and not written: what
 * its staging area held (every buffer full of the smallest records) and
 * one being copied in each slot.  A larger jump of seq is damage, not loss. */
#define PENDING_MAX_LOST ((uint64_t)PENDING_MAX_BUFS * (PENDING_BUF_SIZE / sizeof(struct pending_rec) + 1))
/* Bytes a record of a LEN-byte line (newline included) takes in a buffer. */
static inline size_t pending_rec_size(size_t len)
{
	return (sizeof(struct pending_rec) + len + 7) & ~(size_t)7;
}

struct pending_header {
	char magic[8];
	int32_t pid;
	uint32_t n_bufs;   /* buffers laid out after the header (even) */
	uint64_t buf_size;
	/* per buffer: bytes of whole records from its start; the file holds
	 * only the buffers in use so far (0 beyond it) */
	_Atomic uint64_t used[PENDING_MAX_BUFS];
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
	/* the trace files' smallest size when the writer opened them: its
	 * records lie beyond */
	uint64_t trace_off;
	/* the `clrtrace run` the writer ran under: its CLRTRACE_STATUS name
	 * (without the '@'), NUL-terminated; empty when not under one.  Not a
	 * secret (the name is in /proc/net/unix): it tells this run's mirrors
	 * from another run's of the same user, not another user's (the file's
	 * owner does) */
	char run_id[64];
	/* the file sink rotated its trace (max-size): the records up to this
	 * seq are in the files rotated out, and the trace (PATH, always the
	 * file being written) holds only later ones, from trace_off 0.  Set
	 * before the rename, so that a death at any point of a rotation
	 * merges neither too little nor twice.  0: no rotation */
	_Atomic uint64_t rotated_seq;
};

/* Create and map a mirror of the trace file PATH (open as TRACE_FD) with
 * N_BUFS buffers of SIZE bytes, none reserved yet (pending_reserve), for a
 * writer under the `clrtrace run` RUN_ID (NULL: none, see run_id):
 * PATH.<pid>.pending, or PATH.<pid>.<n>.pending when that name is taken
 * (another run's unrecovered file is never touched).  *RET_FD keeps the
 * writer's lock. */
int pending_create(const char *path, int trace_fd, size_t size, unsigned n_bufs, const char *run_id,
		   struct pending_header **ret, char **ret_path, int *ret_fd);
/* Give the mirror at PENDING_PATH a second name for the trace file PATH
 * (another file sink with the same records), *RET_PATH; TRACE_FD lowers
 * trace_off to that file's size.  -errno when no hard link can be made. */
int pending_link(struct pending_header *h, const char *pending_path, const char *path, int trace_fd,
		 char **ret_path);
/* Reserve bytes FROM..TO of buffer BUF of the mirror FD, not in use yet
 * (they are written with zeros): a store into a hole of a full disk would
 * be a SIGBUS in the traced program.  0 or -errno. */
int pending_reserve(const struct pending_header *h, int fd, unsigned buf, size_t from, size_t to);
static inline char *pending_data(struct pending_header *h, unsigned i)
{
	return (char *)h + PENDING_DATA_OFFSET + (size_t)i * h->buf_size;
}
static inline void pending_set_used(struct pending_header *h, unsigned i, size_t used)
{
	atomic_store_explicit(&h->used[i], used, memory_order_release);
}
/* Delete (every name in PATHS), unmap and unlock the mirror (its records
 * are in the trace). */
void pending_remove(struct pending_header *h, char *const *paths, size_t n_paths, int fd);

/* Does the pid in H mean something here: the same boot and PID namespace? */
bool pending_same_host(const struct pending_header *h);
/* Start time of process PID (a zombie's too) as the header holds it, or 0. */
uint64_t pending_start_ticks(int pid);

/* Told about each mirror that was not merged (PENDING its path, WHY one
 * line; ERROR 1 when it is an error rather than a file still in use), and
 * with ERROR -1 about each one merged (WHY: whose records, for a caller
 * that names them). */
typedef void (*pending_say_fn)(void *ud, const char *pending, const char *why, int error);
/* Is the mirror with header H one the caller may merge (its writer's
 * identity: pid, start time, boot, run_id)? */
typedef bool (*pending_ours_fn)(void *ud, const struct pending_header *h);
/* Append the records of each dead writer's PATH.<pid>[.<n>].pending that
 * TRACE lacks, then delete it.  Only the tracing user's own files (owned by
 * the effective uid, writable by no one else), and of those only the ones
 * OURS takes (NULL: all): another's is said and left as it is, never
 * deleted.  Files of live writers are left alone.  Returns the number of
 * records recovered or -errno (-ENOENT: neither the trace nor a mirror
 * exists; -EBADMSG: some mirror was not merged, and SAY was told why). */
int pending_recover(const char *trace, pending_ours_fn ours, pending_say_fn say, void *ud);
