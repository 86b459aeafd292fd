/* SPDX-License-Identifier: MIT */
/* The staging area (stage.c): each thread numbers its records and copies
 * them into its own slot; the writer takes them in seq order to the sinks. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "profiler/sinks/sink.h"

/* Open the area for a trace: its buffers are a mirror of the trace files
 * PATHS[0..n) (open as FDS), FILE.<pid>.pending, or private memory when
 * there is none; RUN_ID names the `clrtrace run` the process is traced
 * under in the mirror's header (NULL: none).  0 or -errno. */
int stage_open(char *const *paths, const int *fds, size_t n, const char *run_id);
/* Number the record LINE[CT_SEQ_ROOM..len) (its {"v":1,"seq":N written
 * into the room in front) and stage it for the writer.  1 when staged, 0
 * when it is not part of the trace (sealed, ended, closed), -errno when it
 * could not be staged. */
int stage_put(struct ct_stage_ref *ref, char *line, size_t len, int tid, enum ct_event ev, int depth);
/* Take every record numbered so far to DELIVER, in seq order, then call
 * DONE; release their room.  DYING: wait for nothing that may never come.
 * False when a dying caller gave up. */
bool stage_round(bool dying, void (*deliver)(const struct ct_rec *r), void (*done)(bool dying));
/* Records numbered so far. */
uint64_t stage_numbered(void);
/* Seal the numbering: only a last record (runtime.shutdown) gets a seq
 * after this.  Returns the records numbered before it. */
uint64_t stage_seal(void);
/* Is the trace open (not sealed, not ended)? */
bool stage_is_open(void);
/* Wake the writer: a thread staged a record too big for its buffers (sinks.c). */
void ct_sinks_kick(void);
/* End the numbering and free the area (the writer has taken everything). */
void stage_close(void);
/* The file sink is about to rename its trace away (rotation): the records
 * up to SEQ are in the files before the one it opens next, and the
 * mirror's merge starts that one at offset 0 after SEQ.  The writer only. */
void stage_files_rotated(uint64_t seq);
/* A file sink's min-free: the mirror grows in the trace's directory only
 * while it leaves PERCENT of the file system free (the largest given). */
void stage_set_min_free(unsigned percent);
/* A thread ends: its slot may serve another. */
void stage_thread_exit(struct ct_stage_ref *ref);

/* min-free's floor, in bytes, on a file system of BLOCKS blocks of FRSIZE
 * bytes: PCT percent of it, but at most CT_MIN_FREE_CAP, as journald caps
 * SystemKeepFree= at 4G: a large disk that is 91 % full has room enough
 * for a trace, and 10 % of it would refuse every record. */
#define CT_MIN_FREE_CAP ((uint64_t)4 << 30)
static inline unsigned __int128 ct_min_free_floor(uint64_t blocks, uint64_t frsize, unsigned pct)
{
	unsigned __int128 f = (unsigned __int128)blocks * frsize * pct / 100;

	return f > CT_MIN_FREE_CAP ? CT_MIN_FREE_CAP : f;
}
