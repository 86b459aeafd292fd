/* SPDX-License-Identifier: MIT */
/* The head of a record, and the JSON values it and the payloads are made
 * of (see record-head.h). */
#include "common/digits.h"
#include "common/record-head.h"

/* Bytes copied as they are: printable ASCII but the quote and backslash. */
static const bool plain[256] = {
	[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7f] = 1,
};

/* Length of the run of plain bytes at P (N bytes to look at), eight at a
 * time: a word holds a byte to stop at when one is below 0x20 or above
 * 0x7f, or is the quote or the backslash (the bytes after it go one by
 * one). */
static size_t plain_run(const unsigned char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, stop;

		memcpy(&x, p + i, 8);
		stop = ((x - ones * 0x20) & ~x) | x | /* < 0x20, >= 0x80 */
		       (((x ^ (ones * '"')) - ones) & ~(x ^ (ones * '"'))) |
		       (((x ^ (ones * '\\')) - ones) & ~(x ^ (ones * '\\')));
		if (stop & high)
			break;
	}
	while (i < n && plain[p[i]])
		i++;
	return i;
}

void ct_json_str(struct strbuf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t slen = strlen(s), len = plain_run(p, slen);

	/* the common case, nothing to escape: one copy between the quotes */
	if (len == slen) {
		char *q;

		if (b->len + len + 2 >= b->cap && !strbuf_grow(b, len + 2))
			return;
		q = b->s + b->len;
		*q++ = '"';
		memcpy(q, p, len);
		q += len;
		*q++ = '"';
		*q = '\0';
		b->len += len + 2;
		return;
	}
	strbuf_add(b, "\"", 1);
	while (*p) {
		const unsigned char *run = p;

		while (plain[*p])
			p++;
		if (p > run)
			strbuf_add(b, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p < 0x20 || *p == '"' || *p == '\\') {
			char esc[6] = { '\\', 0 };
			size_t n = 2;

			switch (*p) {
			case '"': esc[1] = '"'; break;
			case '\\': esc[1] = '\\'; break;
			case '\n': esc[1] = 'n'; break;
			case '\r': esc[1] = 'r'; break;
			case '\t': esc[1] = 't'; break;
			default:
				memcpy(esc + 1, "u00", 3);
				esc[4] = hex[*p >> 4];
				esc[5] = hex[*p & 15];
				n = 6;
			}
			strbuf_add(b, esc, n);
			p++;
			continue;
		}
		/* a multi-byte UTF-8 sequence: copy if well formed */
		size_t n = (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
		bool good = n > 0 && !(*p == 0xC0 || *p == 0xC1 || *p > 0xF4);
		for (size_t i = 1; good && i < n; i++)
			good = (p[i] & 0xC0) == 0x80;
		if (good) {
			strbuf_add(b, (const char *)p, n);
			p += n;
		} else {
			strbuf_add(b, "\xEF\xBF\xBD", 3);
			p++;
		}
	}
	strbuf_add(b, "\"", 1);
}

/* A timestamp is 19 digits, written in every record (digits.h).  The digits
 * go into a scratch whose 24 bytes after them are copied whole: a copy of
 * constant size is a few moves, where one of N bytes was a call to memcpy
 * (a tenth of the record writer's time on /boom).  The bytes past the
 * number are overwritten by whatever comes next. */
void ct_json_u64(struct strbuf *b, uint64_t v)
{
	char buf[48];
	size_t n;

	if (b->len + 24 >= b->cap && !strbuf_grow(b, 24))
		return;
	if (v < 10) { /* depth 0, most of the time */
		b->s[b->len++] = (char)('0' + v);
		b->s[b->len] = '\0';
		return;
	}
	memset(buf + 24, 0, 24); /* defined bytes after the number, for valgrind */
	n = digits_u64(buf + 24, v);
	memcpy(b->s + b->len, buf + 24 - n, 24);
	b->len += n;
	b->s[b->len] = '\0';
}

void ct_json_i64(struct strbuf *b, int64_t v)
{
	if (v < 0) {
		strbuf_add(b, "-", 1);
		ct_json_u64(b, (uint64_t)0 - (uint64_t)v);
	} else
		ct_json_u64(b, (uint64_t)v);
}

void ct_json_hex(struct strbuf *b, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char buf[20];
	char *e = buf + sizeof(buf), *q = e;

	*--q = '"';
	do
		*--q = hex[v & 15];
	while (v >>= 4);
	*--q = 'x';
	*--q = '0';
	*--q = '"';
	strbuf_add(b, q, (size_t)(e - q));
}

/* The thread's members (see record-head.h). */
void ct_record_ids(struct strbuf *b, int pid, int tid, uint64_t thread, int64_t managed_tid, const char *name)
{
	strbuf_add(b, ",\"pid\":", 7);
	ct_json_i64(b, pid);
	strbuf_add(b, ",\"tid\":", 7);
	ct_json_i64(b, tid);
	strbuf_add(b, ",\"thread\":", 10);
	if (thread)
		ct_json_hex(b, thread);
	else
		strbuf_add(b, "null", 4);
	if (managed_tid) {
		strbuf_add(b, ",\"managed_tid\":", 15);
		ct_json_i64(b, managed_tid);
	}
	if (name) {
		strbuf_add(b, ",\"thread_name\":", 15);
		ct_json_str(b, name);
	}
}

/* TS (19 digits since 1973): the digits above the last eight from C,
 * made again when they change. */
static void ts_write(struct strbuf *b, uint64_t ts, struct ct_ts_cache *c)
{
	uint64_t hi = ts / 100000000u;

	if (!c || hi == 0 || (b->len + 40 >= b->cap && !strbuf_grow(b, 40))) {
		ct_json_u64(b, ts);
		return;
	}
	if (hi != c->hi || !c->len) {
		c->hi = hi;
		c->len = (uint8_t)digits_u64(c->text + sizeof(c->text), hi);
		memmove(c->text, c->text + sizeof(c->text) - c->len, c->len);
	}
	memcpy(b->s + b->len, c->text, 16); /* constant size: the bytes past them are overwritten */
	b->len += c->len;
	digits8(b->s + b->len + 8, (uint32_t)(ts % 100000000u));
	b->len += 8;
	b->s[b->len] = '\0';
}

/* A record's head (see record-head.h). */
void ct_record_head(struct strbuf *b, const struct ct_record_head *h)
{
#define PHASE(text) { text, sizeof(text) - 1 }
	static const struct {
		const char *s;
		size_t n;
	} phase_text[_PH_MAX] = {
		[PH_INSTANT] = PHASE("\""), /* omitted: the default */
		[PH_BEGIN] = PHASE("\",\"phase\":\"begin\""),
		[PH_END] = PHASE("\",\"phase\":\"end\""),
	};
#undef PHASE
	static const char room[] = "                                 ";
	_Static_assert(sizeof(room) - 1 == CT_SEQ_ROOM, "room is CT_SEQ_ROOM blanks");

	if (h->unnumbered)
		strbuf_add(b, room, CT_SEQ_ROOM);
	else {
		strbuf_add(b, CT_RECORD_HEAD, sizeof(CT_RECORD_HEAD) - 1);
		ct_json_u64(b, h->seq);
	}
	strbuf_add(b, ",\"ts\":", 6);
	ts_write(b, h->ts, h->ts_cache);
	strbuf_add(b, h->ids, h->ids_len);
	/* event names are the vocabulary's identifiers: nothing to escape */
	strbuf_add(b, ",\"event\":\"", 10);
	strbuf_add(b, ct_events[h->ev].name, ct_events[h->ev].name_len);
	strbuf_add(b, phase_text[h->ph].s, phase_text[h->ph].n);
	/* span and parent only when there is one (clrtrace-records(5)) */
	if (h->span) {
		strbuf_add(b, ",\"span\":", 8);
		ct_json_u64(b, h->span);
	}
	if (h->parent) {
		strbuf_add(b, ",\"parent\":", 10);
		ct_json_u64(b, h->parent);
	}
	/* depth only when not 0, phase only when not instant: the defaults
	 * (clrtrace-records(5)) */
	if (h->depth) {
		strbuf_add(b, ",\"depth\":", 9);
		ct_json_u64(b, h->depth);
	}
}

/* A record's event from its head (see record-head.h). */
enum ct_event ct_record_event(const char *line, size_t len)
{
	static const char key[] = ",\"event\":\"";
	const char *p = memmem(line, len, key, sizeof(key) - 1), *q;
	char name[64];

	if (!p)
		return _EV_INVALID;
	p += sizeof(key) - 1;
	q = memchr(p, '"', len - (size_t)(p - line));
	if (!q || (size_t)(q - p) >= sizeof(name))
		return _EV_INVALID;
	memcpy(name, p, (size_t)(q - p));
	name[q - p] = '\0';
	return ct_event_from_string(name);
}
