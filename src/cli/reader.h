/* SPDX-License-Identifier: MIT */
/* Streaming JSON Lines reader shared by view, stats, export and check. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"
#include "common/vocabulary.h"

/* Lines longer than this are reported and skipped, never buffered whole. */
#define RD_MAX_LINE (64u << 20)

struct rd;

/* One record, parsed leniently: what every command needs.  Integers that
 * are missing or null read as -1 (but a missing depth reads as 0, its
 * default, and a missing phase as PH_INSTANT); event names not in
 * vocabulary.def read as _EV_INVALID (a newer schema) and are still
 * delivered. */
struct rec {
	json_t *j;           /* the whole object (owned) */
	uint64_t line;       /* 1-based line number */
	int64_t v, seq, ts, pid, tid, span, parent, depth, dur_ns;
	const char *event;   /* never NULL */
	const char *thread;  /* managed ThreadID or NULL */
	int64_t managed_tid; /* Thread.ManagedThreadId, or -1 when the record has none */
	const char *thread_name; /* Thread.Name, or NULL */
	int64_t begin_tid;   /* an end written on another thread than its begin
			      * (a load the runtime finished there): the tid that
			      * began it; else -1 */
	enum ct_event ev;
	enum ct_phase ph;
	int cat;             /* enum ct_category or _CAT_INVALID */
};

/* The TRACE... paragraph of the readers' --help. */
#define TRACE_HELP \
	"TRACE... are read one after the other, as cat would (- is standard\n" \
	"input).  A file a rotating sink wrote (-o file:PATH,max-size=...) is read\n" \
	"with its rotated files: STEM.N.jsonl[.zst] by N, then PATH; a directory\n" \
	"is the one such set in it.  .zst files are decompressed (libzstd).\n"

/* Open the N operands OPS, read one after the other: files ("-" for
 * stdin), .zst files, rotated sets (PATH: its rotated siblings, then PATH)
 * and directories holding one set (trace-set.c).  Follow: wait for more
 * data at the end of the last file.  On failure says why in one line
 * ("clrtrace: CMD: ...") and returns a negative errno. */
int rd_open(struct rd **ret, const char *cmd, char *const *ops, size_t n, bool follow);
/* A second source of lines (the journal, src/cli/journal-source.c): next()
 * gives 1 and one record's line (valid until the next call), 0 at the end,
 * negative errno; wait() blocks briefly for more (follow mode): 0, or >0
 * when no more will come (the reader then ends), or negative errno; done()
 * frees SRC.  rd_record() and the warnings work on it as on a file. */
struct rd_source {
	int (*next)(void *src, const char **line, size_t *len);
	int (*wait)(void *src);
	void (*done)(void *src);
};
/* A reader over SRC, named NAME in warnings; takes SRC even on failure. */
int rd_open_source(struct rd **ret, const char *name, const struct rd_source *ops, void *src, bool follow);
struct rd *rd_free(struct rd *r);
/* Next raw line: 1 (line, len; NUL-terminated, no newline), 0 at end,
 * negative errno on a read error.  *partial is set for a last line that
 * has no newline (a writer killed mid-line). */
int rd_line(struct rd *r, const char **line, size_t *len, bool *partial);
/* The exception id of R: its exception.id; a summary without "exception"
 * is of its error's first throw, whose id is its "error"; -1: none. */
int64_t rec_exception_id(const struct rec *r);
/* Next record: 1, 0 at end, negative errno.  Lines that are not records
 * are reported with rd_warn and skipped (counted in rd_bad).  An
 * exception.summary that does not name its exception gets {"id": its
 * error}, and one that names it by id only the type, message and hresult
 * of the exception.throw of the same pid and id read before it (up to
 * 65536 throws and 16 MiB of their text are kept until their summary). */
int rd_record(struct rd *r, struct rec *out);
/* Parse one line into a record; on failure returns -EINVAL and a malloc'd
 * reason in *ret_err.  A record whose ts or dur_ns is out of range is
 * parsed (the value reads as absent, -1) and *ret_err says so; else NULL. */
int rec_parse(struct rec *out, const char *line, size_t len, uint64_t lineno, char **ret_err);
void rec_done(struct rec *r);
/* Keep what R says of its thread in *MANAGED_TID (when it has one) and
 * *NAME (malloc'd; replaced when R names the thread otherwise). */
void rec_thread_ident(const struct rec *r, int64_t *managed_tid, char **name);
/* Line number of the last line returned, counted over all the files. */
uint64_t rd_lineno(const struct rd *r);
/* The file being read (for a read error), and the whole input (for a
 * summary: the operand, "FIRST ..." for several). */
const char *rd_name(const struct rd *r);
const char *rd_label(const struct rd *r);
/* The file LINE (counted over all the files; 0: none) is in, and its
 * number there. */
void rd_where(const struct rd *r, uint64_t line, const char **name, uint64_t *file_line);
/* A read error of R (negative errno) in words: what was wrong with a .zst. */
const char *rd_strerror(struct rd *r, int err);
/* Lines skipped by rd_record because they were not records. */
uint64_t rd_bad(const struct rd *r);
/* In follow mode, called once each time the reader catches up with the
 * writer, before it waits. */
void rd_set_idle(struct rd *r, void (*fn)(void *), void *userdata);
/* "clrtrace: NAME:LINE: message" on stderr; after 20, only counted. */
void rd_warn(struct rd *r, uint64_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Count a delivered record as a bad line (a value out of range, said with
 * rd_warn): the command then exits 1. */
void rd_mark_bad(struct rd *r);
/* Print "N more problems not shown" if warnings were suppressed. */
void rd_warn_summary(struct rd *r);

/* Field helpers on a record's JSON (NULL/-1 when absent or mistyped). */
const char *jstr(json_t *o, const char *key);
const char *jstr2(json_t *o, const char *key, const char *key2);
int64_t jint(json_t *o, const char *key);
int64_t jint2(json_t *o, const char *key, const char *key2);

/* Parse "auto|always|never" + NO_COLOR + isatty(fd): should we colour? */
int color_choice(const char *arg, int fd, bool *ret);
/* Duration in a short human form ("1.23ms") into buf (at least 16 bytes). */
const char *fmt_dur(char *buf, size_t size, int64_t ns);

/* The key of a record's thread. */
static inline uint64_t thread_key(const struct rec *r)
{
	return ((uint64_t)(uint32_t)r->pid << 32) | (uint32_t)r->tid;
}
