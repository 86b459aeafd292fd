/* SPDX-License-Identifier: MIT */
/*
 * One record → one journal entry.  Every leaf of the record becomes
 * CLRTRACE_<PATH> (upper snake case); arrays repeat their field (journalctl
 * matches any element; order and duplicates live in CLRTRACE_JSON); null
 * leaves are left out.  MESSAGE is rendered from a per-event template.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/sinks/journal-fields.h"
#include "common/record-names.h"
#include "common/strbuf.h"
#include "common/util.h"

#define MESSAGE_INDENT_MAX 40 /* depth levels shown as indentation */

/* FNV-1a of a string, to keep over-long field names distinct. */
static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* One character of a record path as it appears in a field name. */
static char name_char(char c)
{
	if (c >= 'a' && c <= 'z')
		return (char)(c - 'a' + 'A');
	if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return c;
	return '_';
}

/* Journal field name of a record path (see journal-fields.h). */
void jf_field_name(const char *path, char out[JF_NAME_MAX + 1])
{
	const size_t pre = sizeof(JF_PREFIX) - 1, room = JF_NAME_MAX - pre;
	size_t len = strlen(path), keep = len <= room ? len : room - 9;

	memcpy(out, JF_PREFIX, pre);
	for (size_t i = 0; i < keep; i++)
		out[pre + i] = name_char(path[i]);
	if (keep < len) /* too long: a prefix and a hash of the whole path */
		snprintf(out + pre + keep, 10, "_%08" PRIX32, fnv1a(path));
	else
		out[pre + keep] = 0;
}

/* Make room for one more item in E. */
static int entry_grow_items(struct jf_entry *e)
{
	size_t cap;
	size_t *off, *ilen;

	if (e->n < e->ncap)
		return 0;
	cap = e->ncap ? e->ncap * 2 : 64;
	off = realloc(e->off, cap * sizeof(*off));
	if (!off)
		return -ENOMEM;
	e->off = off;
	ilen = realloc(e->ilen, cap * sizeof(*ilen));
	if (!ilen)
		return -ENOMEM;
	e->ilen = ilen;
	e->ncap = cap;
	return 0;
}

/* Add the item NAME=VALUE (VLEN bytes, may hold any byte) to E. */
static int entry_add(struct jf_entry *e, const char *name, const char *value, size_t vlen)
{
	size_t nlen = strlen(name), need = nlen + 1 + vlen;
	int r;

	r = entry_grow_items(e);
	if (r < 0)
		return r;
	if (e->len + need > e->cap) {
		size_t cap = e->cap ? e->cap : 4096;
		char *d;

		while (cap < e->len + need)
			cap *= 2;
		d = realloc(e->data, cap);
		if (!d)
			return -ENOMEM;
		e->data = d;
		e->cap = cap;
	}
	memcpy(e->data + e->len, name, nlen);
	e->data[e->len + nlen] = '=';
	memcpy(e->data + e->len + nlen + 1, value, vlen);
	e->off[e->n] = e->len;
	e->ilen[e->n] = need;
	e->n++;
	e->len += need;
	return 0;
}

/* Text of a scalar: strings raw, numbers as JSON, booleans true/false.
 * Writes into BUF (64 bytes) when it has to format; NULL for null/containers. */
static const char *scalar_text(json_t *v, char buf[64], size_t *len)
{
	const char *s;

	switch (json_typeof(v)) {
	case JSON_STRING:
		*len = json_string_length(v);
		return json_string_value(v);
	case JSON_INTEGER:
		*len = (size_t)snprintf(buf, 64, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	case JSON_REAL:
		*len = (size_t)snprintf(buf, 64, "%.17g", json_real_value(v));
		return buf;
	case JSON_TRUE:
	case JSON_FALSE:
		s = json_is_true(v) ? "true" : "false";
		*len = strlen(s);
		return s;
	default:
		return NULL;
	}
}

/* Add the leaves under V, whose record path is PATH->s, to E. */
static int flatten(struct jf_entry *e, json_t *v, struct strbuf *path)
{
	char name[JF_NAME_MAX + 1], buf[64];
	const char *key, *text;
	size_t base = path->len, i, len;
	json_t *x;
	int r = 0;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		json_object_foreach(v, key, x) {
			if (base)
				strbuf_add(path, ".", 1);
			strbuf_puts(path, key);
			if (path->oom)
				return -ENOMEM;
			r = flatten(e, x, path);
			path->len = base;
			path->s[base] = 0;
			if (r < 0)
				return r;
		}
		return 0;
	case JSON_ARRAY:
		json_array_foreach(v, i, x) {
			r = flatten(e, x, path);
			if (r < 0)
				return r;
		}
		return 0;
	case JSON_NULL:
		return 0;
	default:
		text = scalar_text(v, buf, &len);
		if (!text)
			return 0;
		/* the iovecs sd_journal_sendv will make of it */
		i = memchr(text, '\n', len) ? 5 : 2;
		if (e->iov_used + i > JF_IOV_RECORD) {
			e->truncated = true;
			return 0;
		}
		e->iov_used += i;
		jf_field_name(path->s ? path->s : "", name);
		return entry_add(e, name, text, len);
	}
}

/* Value at a dotted PATH in REC, or NULL. */
static json_t *lookup(json_t *rec, const char *path)
{
	const char *p = path;
	json_t *v = rec;

	while (v && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);

		v = json_is_object(v) ? json_object_getn(v, p, n) : NULL;
		p += n + (dot ? 1 : 0);
	}
	return v;
}

/* Append the LEN bytes of T as MESSAGE text, control characters as spaces. */
static void append_text(struct strbuf *b, const char *t, size_t len)
{
	for (size_t k = 0; k < len; k++) {
		/* a C1 control (U+0080..U+009F: 0xc2 0x80..0x9f), CSI among them */
		bool c1 = (unsigned char)t[k] == 0xc2 && k + 1 < len && (unsigned char)t[k + 1] >= 0x80 &&
			  (unsigned char)t[k + 1] <= 0x9f;

		strbuf_add(b, (unsigned char)t[k] < 0x20 || t[k] == 0x7f || c1 ? " " : t + k, 1);
		k += c1;
	}
}

/* Append V as MESSAGE text (arrays joined by ","); false if it is
 * missing, null or an object. */
static bool append_value(struct strbuf *b, json_t *v)
{
	char buf[64];
	const char *t;
	size_t len, i;
	json_t *x;

	if (json_is_array(v)) {
		if (json_array_size(v) == 0)
			return false;
		json_array_foreach(v, i, x) {
			if (i)
				strbuf_add(b, ",", 1);
			if (!append_value(b, x))
				return false;
		}
		return true;
	}
	t = v ? scalar_text(v, buf, &len) : NULL;
	if (!t)
		return false;
	append_text(b, t, len);
	return true;
}

/* Append the method named by V (a raw name of REC) as clrtrace view says
 * it; false if V is no string. */
static bool append_method(struct strbuf *b, json_t *rec, json_t *v)
{
	struct strbuf name = { 0 };

	if (!json_is_string(v))
		return false;
	dotnet_record_say(rec, json_string_value(v), &name);
	if (name.oom)
		b->oom = true;
	else if (name.s)
		append_text(b, name.s, name.len);
	strbuf_free(&name);
	return true;
}

/* Expand a MESSAGE subject template (see vocabulary.def) for REC into B. */
static void expand(struct strbuf *b, const char *tmpl, json_t *rec)
{
	size_t group_start = 0;
	bool in_group = false, group_ok = true;

	for (const char *p = tmpl; *p; p++) {
		if (*p == '[') {
			in_group = true;
			group_ok = true;
			group_start = b->len;
		} else if (*p == ']') {
			if (!group_ok && !b->oom) {
				b->len = group_start;
				b->s[b->len] = 0;
			}
			in_group = false;
		} else if (*p == '@' && strchr(p + 1, '@')) {
			const char *end = strchr(p + 1, '@');
			char *path = strndup(p + 1, (size_t)(end - p - 1));
			bool method = path && strncmp(path, CT_MESSAGE_METHOD, strlen(CT_MESSAGE_METHOD)) == 0;

			if (!path || !(method ? append_method(b, rec, lookup(rec, path + strlen(CT_MESSAGE_METHOD)))
					      : append_value(b, lookup(rec, path))))
				group_ok = !in_group;
			free(path);
			p = end;
		} else
			strbuf_add(b, p, 1);
	}
}

/* Human form of a duration in nanoseconds. */
static void append_duration(struct strbuf *b, json_int_t ns)
{
	char buf[48];

	if (ns < 1000000)
		snprintf(buf, sizeof(buf), " (%.1f us)", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, sizeof(buf), " (%.2f ms)", (double)ns / 1e6);
	else
		snprintf(buf, sizeof(buf), " (%.2f s)", (double)ns / 1e9);
	strbuf_puts(b, buf);
}

/* The MESSAGE line of a record (see journal-fields.h). */
char *jf_message(json_t *rec, enum ct_event ev, int depth)
{
	struct strbuf b = { 0 };
	const char *phase = json_string_value(json_object_get(rec, "phase"));
	json_t *dur = json_object_get(rec, "dur_ns"), *begin = json_object_get(rec, "begin_tid");
	size_t before;

	for (int i = 0; i < depth && i < MESSAGE_INDENT_MAX; i++)
		strbuf_add(&b, "  ", 2);
	strbuf_puts(&b, ev >= 0 && ev < _EV_MAX ? ct_events[ev].name : "?");
	if (phase && strcmp(phase, "instant") != 0) {
		strbuf_add(&b, " ", 1);
		strbuf_puts(&b, phase);
	}
	before = b.len;
	strbuf_add(&b, ": ", 2);
	if (ev >= 0 && ev < _EV_MAX && ct_events[ev].message)
		expand(&b, ct_events[ev].message, rec);
	if (!b.oom && b.len == before + 2) { /* no subject */
		b.len = before;
		b.s[b.len] = 0;
	}
	if (json_is_integer(dur))
		append_duration(&b, json_integer_value(dur));
	/* an end written on another thread than its begin (a load another
	 * thread finished): where it began, as CLRTRACE_BEGIN_TID says */
	if (json_is_integer(begin))
		strbuf_printf(&b, ", begun on thread %" JSON_INTEGER_FORMAT, json_integer_value(begin));
	return strbuf_steal(&b);
}

/* The raw name of the .NET method REC is about, for CODE_FUNC: its
 * stack's innermost managed frame (an exception's throw site), else the
 * method it names (thrown_in, function); NULL if none. */
static const char *code_method(json_t *rec)
{
	static const char *const paths[] = { "thrown_in", "function" };
	json_t *frame;
	size_t i;

	json_array_foreach(json_object_get(rec, "stack"), i, frame) {
		const char *f = json_string_value(json_object_get(frame, "function"));

		if (f && strcmp(f, "[native]") != 0)
			return f;
	}
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (json_is_string(json_object_get(rec, paths[i])))
			return json_string_value(json_object_get(rec, paths[i]));
	return NULL;
}

/* Add CODE_FUNC, the method REC is about as clrtrace view says it (see
 * journal-fields.h), if it names one. */
static int add_code_func(struct jf_entry *e, json_t *rec)
{
	const char *fn = code_method(rec);
	struct strbuf b = { 0 };
	int r;

	if (!fn)
		return 0;
	dotnet_record_say(rec, fn, &b);
	r = b.oom ? -ENOMEM : entry_add(e, "CODE_FUNC", b.s ? b.s : "", b.len);
	strbuf_free(&b);
	return r;
}

/* exception.error's PRIORITY by its fate: the one record whose priority is
 * not its event's (vocabulary.def has one per event).  [0]: the catch
 * that decided it is not a last-chance handler's, [1]: it is (handler.final:
 * Kestrel's 500, the exception handler middleware, the Generic Host
 * stopping a background service, a failed xunit test).  An error the
 * program or a framework took care of is info, like any step of a
 * working program; one that stopped a request, a service or a test is
 * err; one still in flight at the end is warning; the crash is crit. */
static const int fate_priority[_FATE_MAX][2] = {
	[FATE_HANDLED] = { 6, 6 },	       [FATE_HANDLED_BY_FRAMEWORK] = { 6, 3 },
	[FATE_HANDLED_BY_RUNTIME] = { 6, 6 }, [FATE_STORED] = { 6, 6 },
	[FATE_SWALLOWED] = { 6, 6 },	       [FATE_SUPERSEDED] = { 6, 6 },
	[FATE_WRAPPED] = { 6, 6 },	       [FATE_UNHANDLED] = { 2, 2 },
	[FATE_OPEN] = { 4, 4 },
};

/* Is EXC (a record's "exception") a cancellation: OperationCanceledException
 * or TaskCanceledException, the two the runtime throws when a token is
 * cancelled? */
static bool is_cancellation(json_t *exc)
{
	const char *type = json_string_value(json_object_get(exc, "type"));

	return type && (strcmp(type, "System.OperationCanceledException") == 0 ||
			strcmp(type, "System.Threading.Tasks.TaskCanceledException") == 0);
}

/* The PRIORITY of REC, a record of event EV (see journal-fields.h). */
int jf_priority(json_t *rec, enum ct_event ev)
{
	enum ct_fate f;

	if (ev < 0 || ev >= _EV_MAX)
		return 6;
	if (ev != EV_EXCEPTION_ERROR)
		return ct_events[ev].priority;
	f = ct_fate_from_string(json_string_value(json_object_get(rec, "fate")));
	if (f < 0 || f >= _FATE_MAX)
		return ct_events[ev].priority;
	/* a cancellation a framework ended is how a host stops its work or a
	 * server drops an aborted request, not a failure (neither logs one) */
	if (f == FATE_HANDLED_BY_FRAMEWORK && is_cancellation(json_object_get(rec, "exception")))
		return fate_priority[f][false];
	return fate_priority[f][json_is_true(json_object_get(json_object_get(rec, "handler"), "final"))];
}

/* Keep EXC, the "exception" of an exception.throw, in E's ring. */
static void remember_throw(struct jf_entry *e, json_t *exc)
{
	if (!json_is_object(exc) || !json_is_integer(json_object_get(exc, "id")))
		return;
	json_decref(e->throws[e->next_throw]);
	e->throws[e->next_throw] = json_incref(exc);
	e->next_throw = (e->next_throw + 1) % JF_THROWS;
}

/* Give REC, an exception.summary, the exception it names by id (its own
 * "exception", else its error's id) whole, from the ring when its throw is
 * there: the journal's entries stand alone.  0 or -ENOMEM. */
static int complete_summary(struct jf_entry *e, json_t *rec)
{
	json_t *exc = json_object_get(rec, "exception");
	json_t *id = json_is_object(exc) ? json_object_get(exc, "id") : json_object_get(rec, "error");
	json_t *from = NULL;
	size_t i;

	if (!json_is_integer(id))
		return 0;
	for (i = 0; i < JF_THROWS && !from; i++)
		if (e->throws[i] && json_integer_value(json_object_get(e->throws[i], "id")) == json_integer_value(id))
			from = e->throws[i];
	if (!json_is_object(exc)) {
		exc = from ? json_copy(from) : json_pack("{s:O}", "id", id);
		return exc && json_object_set_new(rec, "exception", exc) == 0 ? 0 : -ENOMEM;
	}
	return from && json_object_update_missing(exc, from) < 0 ? -ENOMEM : 0;
}

/* Build the entry for one record line (see journal-fields.h). */
int jf_build(struct jf_entry *e, const char *line, size_t len, const struct jf_meta *m)
{
	_cleanup_free_ char *msg = NULL;
	struct strbuf path = { 0 };
	char num[32];
	json_t *rec;
	int r = -EINVAL;

	e->len = 0;
	e->n = 0;
	e->truncated = false;
	e->iov_used = 0;
	rec = json_loadb(line, len, 0, NULL);
	if (!json_is_object(rec))
		goto out;
	r = -ENOMEM;
	/* a summary names its exception by id only, or not at all when it is
	 * its error's: its entry has the exception whole, as the throw's has */
	if (m->event == EV_EXCEPTION_THROW)
		remember_throw(e, json_object_get(rec, "exception"));
	else if (m->event == EV_EXCEPTION_SUMMARY && complete_summary(e, rec) < 0)
		goto out;
	msg = jf_message(rec, m->event, m->depth);
	if (!msg)
		goto out;
	if ((r = entry_add(e, "MESSAGE", msg, strlen(msg))) < 0)
		goto out;
	snprintf(num, sizeof(num), "%d", jf_priority(rec, m->event));
	if ((r = entry_add(e, "PRIORITY", num, strlen(num))) < 0)
		goto out;
	if (m->event >= 0 && m->event < _EV_MAX &&
	    (r = entry_add(e, "MESSAGE_ID", ct_events[m->event].message_id, 32)) < 0)
		goto out;
	if (m->ident && (r = entry_add(e, "SYSLOG_IDENTIFIER", m->ident, strlen(m->ident))) < 0)
		goto out;
	snprintf(num, sizeof(num), "%d", m->tid);
	if ((r = entry_add(e, "TID", num, strlen(num))) < 0)
		goto out;
	if ((r = add_code_func(e, rec)) < 0)
		goto out;
	if ((r = flatten(e, rec, &path)) < 0)
		goto out;
	if (e->truncated && (r = entry_add(e, JF_PREFIX "FIELDS_TRUNCATED", "1", 1)) < 0)
		goto out;
	r = entry_add(e, JF_PREFIX "JSON", line, len);
out:
	free(path.s);
	json_decref(rec);
	return r;
}

/* The iovecs of the entry just built. */
const struct iovec *jf_iovec(struct jf_entry *e, size_t *n)
{
	if (e->iovcap < e->n) {
		struct iovec *iov = realloc(e->iov, e->ncap * sizeof(*iov));

		if (!iov)
			return NULL;
		e->iov = iov;
		e->iovcap = e->ncap;
	}
	for (size_t i = 0; i < e->n; i++)
		e->iov[i] = (struct iovec){ .iov_base = e->data + e->off[i], .iov_len = e->ilen[i] };
	*n = e->n;
	return e->iov;
}

/* Free what E holds. */
void jf_entry_done(struct jf_entry *e)
{
	free(e->data);
	free(e->off);
	free(e->ilen);
	free(e->iov);
	for (size_t i = 0; i < JF_THROWS; i++)
		json_decref(e->throws[i]);
	*e = (struct jf_entry){ 0 };
}
