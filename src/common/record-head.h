/* SPDX-License-Identifier: MIT */
/*
 * The members every record starts with, in this order, and the one place
 * that writes them (record-head.c): the profiler's record writer
 * (profiler/core/emit.c) and the pending merge's trace.dropped
 * (common/pending.c).
 *
 *   {"v":1,"seq":N,"ts":T,"pid":P,"tid":T,"thread":"0x…"|null
 *   [,"managed_tid":M][,"thread_name":"…"],"event":"…"[,"phase":"begin"|"end"]
 *   [,"span":S][,"parent":P][,"depth":D]
 *
 * phase is omitted when "instant", span and parent when there is none,
 * depth when 0 (clrtrace-records(5)).
 *
 * A record's payload follows as ,"key":value members, then "}".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "common/vocabulary.h"

/* What is written in front of the seq. */
#define CT_RECORD_HEAD "{\"v\":1,\"seq\":"
/* Bytes kept in front of a record not yet numbered: the head and the 20
 * digits of the largest seq; the sinks write both into it, right-aligned. */
#define CT_SEQ_ROOM (sizeof(CT_RECORD_HEAD) - 1 + 20)

/* A JSON string: quotes, escapes; bytes that are not valid UTF-8 become
 * U+FFFD so a line is always valid JSON. */
void ct_json_str(struct strbuf *b, const char *s);
/* A number (at most 20 digits). */
void ct_json_u64(struct strbuf *b, uint64_t v);
void ct_json_i64(struct strbuf *b, int64_t v);
/* "0x…" lower-case hex. */
void ct_json_hex(struct strbuf *b, uint64_t v);

/* The thread's members: ,"pid":P,"tid":T,"thread":"0x…"|null (THREAD 0)
 * and, when known, ,"managed_tid":M (not 0) and ,"thread_name":"…" (not
 * NULL).  The record writer keeps them per thread (they change seldom). */
void ct_record_ids(struct strbuf *b, int pid, int tid, uint64_t thread, int64_t managed_tid, const char *name);

/* The digits of a ts above its last eight, kept from one record to the
 * next (they change every 0.1 s). */
struct ct_ts_cache {
	uint64_t hi;
	char text[24];
	uint8_t len;
};

/* One record's head. */
struct ct_record_head {
	bool unnumbered;    /* CT_SEQ_ROOM blanks for the sinks to number it */
	uint64_t seq;
	uint64_t ts;        /* ns since the epoch */
	struct ct_ts_cache *ts_cache; /* NULL: none */
	const char *ids;    /* ct_record_ids's text, IDS_LEN bytes */
	size_t ids_len;
	enum ct_event ev;
	enum ct_phase ph;
	uint64_t span, parent; /* 0: null */
	size_t depth;
};

/* Append H's members (the record's "{" and its head, without "}"). */
void ct_record_head(struct strbuf *b, const struct ct_record_head *h);

/* The event of the record LINE[0..len) as its head says it (the first
 * ,"event": member: a string in the head before it cannot hold that text
 * unescaped), _EV_INVALID when it has none the vocabulary knows. */
enum ct_event ct_record_event(const char *line, size_t len);
