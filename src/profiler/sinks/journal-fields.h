/* SPDX-License-Identifier: MIT */
/*
 * Turning one record (its JSON line) into one journal entry: field names,
 * flattened values, the MESSAGE line.  Pure code (no I/O) so unit tests
 * can drive it; the journal sink's writer thread is its only user.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include "common/vocabulary.h"

/* journald's limits: a field name is 1..64 of [A-Z0-9_], not starting with
 * a digit or '_'; an entry with more than 1024 fields is dropped whole. */
#define JF_NAME_MAX 64
#define JF_PREFIX "CLRTRACE_"
/* sd_journal_sendv() turns each field into 2 iovecs (5 when its value
 * holds a newline), plus 3, and one sendmsg() takes at most 1024 (Linux
 * UIO_MAXIOV; more is EINVAL and the entry is lost): the record's own
 * fields get what the 8 fixed ones (5 each at most) leave. */
#define JF_IOV_MAX 1024
#define JF_IOV_RECORD (JF_IOV_MAX - 3 - 8 * 5)

/* One entry under construction: "NAME=value" items in one growing buffer
 * (reused from entry to entry), turned into iovecs at the end. */
struct jf_entry {
	char *data;
	size_t len, cap;
	size_t *off;  /* start of item i in data */
	size_t *ilen; /* length of item i */
	size_t n, ncap;
	struct iovec *iov;
	size_t iovcap;
	size_t iov_used; /* by the record's own fields (JF_IOV_RECORD) */
	bool truncated; /* fields left out to stay under JF_IOV_RECORD */
	/* the "exception" of the last JF_THROWS exception.throw records, a
	 * ring: a summary names its exception by id only, and its entry gets
	 * back the type, message and hresult of that exception's throw */
	json_t *throws[16];
	unsigned next_throw;
};
#define JF_THROWS (sizeof(((struct jf_entry *)0)->throws) / sizeof(json_t *))

/* What the record line does not say, or says for the sink's convenience. */
struct jf_meta {
	const char *ident; /* SYSLOG_IDENTIFIER */
	enum ct_event event;
	int depth;
	int tid;
};

/* Write the journal name of record path PATH ("exception.type") into OUT
 * (JF_NAME_MAX + 1 bytes): "CLRTRACE_EXCEPTION_TYPE".  Always valid. */
void jf_field_name(const char *path, char out[JF_NAME_MAX + 1]);

/* Build the entry for the record LINE (LEN bytes, one JSON object) into E.
 * CODE_FUNC is the .NET method the record is about, as clrtrace view says
 * it (Program.FetchAsync [async]): the innermost managed frame of its
 * stack (the throw site), else its thrown_in or function; left out when it
 * names none.  No CODE_FILE or CODE_LINE: records carry no source lines
 * (the CLI reads them from the PDBs).  Returns 0 or -errno (-EINVAL: not
 * a JSON object). */
int jf_build(struct jf_entry *e, const char *line, size_t len, const struct jf_meta *m);

/* The PRIORITY of the entry of REC, a record of event EV: the event's
 * (vocabulary.def), but exception.error's follows its fate and handler:
 * unhandled 2 (crit), handled_by_framework by a last-chance handler
 * (handler.final) 3 (err), open 4 (warning), the others 6 (info). */
int jf_priority(json_t *rec, enum ct_event ev);

/* The iovecs of the entry just built; *n gets their number. */
const struct iovec *jf_iovec(struct jf_entry *e, size_t *n);

/* Render the MESSAGE line of a parsed record into a malloc'd string:
 * indentation by depth, event and phase, the event's subject (methods
 * named as clrtrace view names them), duration. */
char *jf_message(json_t *rec, enum ct_event ev, int depth);

/* Free what E holds; E may be reused after. */
void jf_entry_done(struct jf_entry *e);
