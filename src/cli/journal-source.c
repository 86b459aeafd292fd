/* SPDX-License-Identifier: MIT */
/*
 * The journal as a source of records: every entry with a CLRTRACE_JSON
 * field (the journal sink writes the record's JSON Lines line there) is
 * handed to the reader as that line, so view, stats and export read a
 * journal exactly as they read a file.  Matches are journalctl's
 * (sd_journal_add_match): FIELD=VALUE, ORed within a field, ANDed across.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-journal.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/journal-source.h"
#include "common/strbuf.h"
#include "common/util.h"

#define JSON_FIELD "CLRTRACE_JSON"
#define WAIT_US (200 * 1000) /* follow mode: look again at least this often */

struct jsrc {
	sd_journal *j;
	uint64_t until_us; /* 0: no end */
	bool ended;        /* past --journal-until */
	struct strbuf line;
};

/* Take one journal option (see journal-source.h). */
int journal_opt(struct journal_opts *o, int opt, const char *arg)
{
	/* as with journalctl, a match or window alone means the journal */
	switch (opt) {
	case JOPT_JOURNAL:
		o->journal = true;
		return 1;
	case JOPT_DIR:
		o->journal = true;
		o->dir = arg;
		return 1;
	case JOPT_UNIT:
		o->unit = arg;
		o->journal = true;
		return 1;
	case JOPT_IDENT:
		o->ident = arg;
		o->journal = true;
		return 1;
	case JOPT_SINCE:
		o->since = arg;
		o->journal = true;
		return 1;
	case JOPT_UNTIL:
		o->until = arg;
		o->journal = true;
		return 1;
	}
	return 0;
}

/* Local midnight DAYS days from today, in microseconds. */
static int midnight_us(time_t now, int days, uint64_t *ret)
{
	struct tm tm;
	time_t t;

	if (!localtime_r(&now, &tm))
		return -EINVAL;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday += days;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t < 0)
		return -EINVAL;
	*ret = (uint64_t)t * 1000000u;
	return 0;
}

/* "-N[unit]" ago or "+N[unit]" ahead of NOW_US. */
static int relative_us(const char *s, uint64_t now_us, uint64_t *ret)
{
	static const struct {
		const char *name;
		uint64_t us;
	} units[] = {
		{ "", 1000000u }, { "s", 1000000u }, { "sec", 1000000u }, { "min", 60000000u }, { "m", 60000000u },
		{ "h", 3600000000u }, { "d", 86400000000u },
	};
	char *end = NULL;
	unsigned long long n;

	errno = 0;
	n = strtoull(s + 1, &end, 10);
	if (errno || end == s + 1)
		return -EINVAL;
	for (size_t i = 0; i < ELEMENTSOF(units); i++) {
		uint64_t d;

		if (strcmp(end, units[i].name) != 0)
			continue;
		if (__builtin_mul_overflow((uint64_t)n, units[i].us, &d))
			return -ERANGE;
		if (s[0] == '-')
			*ret = d > now_us ? 0 : now_us - d;
		else if (__builtin_add_overflow(now_us, d, ret))
			return -ERANGE;
		return 0;
	}
	return -EINVAL;
}

/* Parse a journalctl-style TIME (see JOURNAL_HELP) into microseconds. */
int journal_parse_time(const char *s, uint64_t now_us, uint64_t *ret)
{
	static const char *const formats[] = {
		"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%H:%M:%S", "%H:%M",
	};
	time_t now = (time_t)(now_us / 1000000u);

	if (streq(s, "now")) {
		*ret = now_us;
		return 0;
	}
	if (streq(s, "today"))
		return midnight_us(now, 0, ret);
	if (streq(s, "yesterday"))
		return midnight_us(now, -1, ret);
	if (streq(s, "tomorrow"))
		return midnight_us(now, 1, ret);
	if (s[0] == '-' || s[0] == '+')
		return relative_us(s, now_us, ret);
	if (s[0] == '@') {
		char *end = NULL;
		double secs;

		errno = 0;
		secs = strtod(s + 1, &end);
		if (errno || end == s + 1 || *end || !(secs >= 0 && secs < 1e13))
			return -EINVAL;
		*ret = (uint64_t)(secs * 1e6);
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(formats); i++) {
		struct tm tm;
		const char *end;
		time_t t;

		if (!localtime_r(&now, &tm))
			return -EINVAL;
		tm.tm_sec = 0; /* "%H:%M" and "%Y-%m-%d" leave the rest as today's midnight */
		if (formats[i][1] == 'Y')
			tm.tm_hour = tm.tm_min = 0;
		end = strptime(s, formats[i], &tm);
		if (!end || *end)
			continue;
		tm.tm_isdst = -1;
		t = mktime(&tm);
		if (t < 0)
			return -EINVAL;
		*ret = (uint64_t)t * 1000000u;
		return 0;
	}
	return -EINVAL;
}

/* Next entry with a record: 1 with its line, 0 at the end, negative errno. */
static int jsrc_next(void *p, const char **line, size_t *len)
{
	struct jsrc *s = p;

	while (!s->ended) {
		const void *d;
		size_t l;
		int r = sd_journal_next(s->j);

		if (r <= 0)
			return r;
		if (s->until_us) {
			uint64_t t;

			if (sd_journal_get_realtime_usec(s->j, &t) >= 0 && t > s->until_us) {
				s->ended = true;
				break;
			}
		}
		r = sd_journal_get_data(s->j, JSON_FIELD, &d, &l);
		if (r == -ENOENT)
			continue; /* not one of ours */
		if (r < 0)
			return r;
		if (l < sizeof(JSON_FIELD))
			continue;
		/* the data is "CLRTRACE_JSON=<line>", not NUL-terminated */
		strbuf_reset(&s->line);
		strbuf_add(&s->line, (const char *)d + sizeof(JSON_FIELD), l - sizeof(JSON_FIELD));
		if (s->line.oom)
			return -ENOMEM;
		*line = s->line.s ? s->line.s : "";
		*len = s->line.len;
		return 1;
	}
	return 0;
}

/* Follow mode: wait for the journal to change; 1 once past --journal-until. */
static int jsrc_wait(void *p)
{
	struct jsrc *s = p;
	int r;

	/* past the window's end (and a moment for what was on its way) */
	if (s->ended || (s->until_us && now_ns() / 1000u > s->until_us + 1000000u))
		return 1;
	r = sd_journal_wait(s->j, WAIT_US);
	return r < 0 ? r : 0;
}

/* Close the journal and free the source. */
static void jsrc_done(void *p)
{
	struct jsrc *s = p;

	if (!s)
		return;
	sd_journal_close(s->j);
	strbuf_free(&s->line);
	free(s);
}

static const struct rd_source jsrc_ops = {
	.next = jsrc_next,
	.wait = jsrc_wait,
	.done = jsrc_done,
};

/* Is M a FIELD=VALUE match journald could hold (FIELD: A-Z, 0-9, _)? */
static bool match_valid(const char *m)
{
	const char *eq = strchr(m, '=');

	if (!eq || eq == m || eq - m > 64 || (m[0] >= '0' && m[0] <= '9'))
		return false;
	for (const char *c = m; c < eq; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

/* Add "FIELD=VALUE" built from two parts as a match. */
static int add_match2(sd_journal *j, const char *field, const char *value)
{
	_cleanup_free_ char *m = NULL;

	if (asprintf(&m, "%s=%s", field, value) < 0)
		return -ENOMEM;
	return sd_journal_add_match(j, m, 0);
}

/* A reader over the journal's clrtrace records (see journal-source.h). */
int journal_open(struct rd **ret, const struct journal_opts *o, char **matches, int n, bool follow, const char *cmd)
{
	struct jsrc *s;
	uint64_t since = 0, now = now_ns() / 1000u;
	const char *name = o->dir ? o->dir : "journal";
	int r;

	for (int i = 0; i < n; i++)
		if (!match_valid(matches[i])) {
			cli_error("%s: '%s' is not a journal match (FIELD=VALUE, FIELD in A-Z, 0-9, _)", cmd,
				  matches[i]);
			return -EINVAL;
		}
	if (o->since && journal_parse_time(o->since, now, &since) < 0) {
		cli_error("%s: --journal-since: '%s' is not a time (see --help)", cmd, o->since);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (o->until && journal_parse_time(o->until, now, &s->until_us) < 0) {
		free(s);
		cli_error("%s: --journal-until: '%s' is not a time (see --help)", cmd, o->until);
		return -EINVAL;
	}
	if (o->dir)
		r = sd_journal_open_directory(&s->j, o->dir, 0);
	else
		r = sd_journal_open(&s->j, SD_JOURNAL_LOCAL_ONLY); /* as journalctl */
	if (r < 0) {
		cli_error("%s: %s: cannot open the journal: %s", cmd, name, strerror(-r));
		goto fail;
	}
	/* records can be larger than the default 64 KiB data threshold */
	r = sd_journal_set_data_threshold(s->j, 0);
	for (int i = 0; r >= 0 && i < n; i++)
		r = sd_journal_add_match(s->j, matches[i], 0);
	if (r >= 0 && o->unit) /* as journalctl -u: "web" is web.service */
		r = add_match2(s->j, "_SYSTEMD_UNIT", o->unit);
	if (r >= 0 && o->unit && !strchr(o->unit, '.')) {
		_cleanup_free_ char *u = NULL;

		r = asprintf(&u, "%s.service", o->unit) < 0 ? -ENOMEM : add_match2(s->j, "_SYSTEMD_UNIT", u);
	}
	if (r >= 0 && o->ident)
		r = add_match2(s->j, "SYSLOG_IDENTIFIER", o->ident);
	if (r >= 0)
		r = since ? sd_journal_seek_realtime_usec(s->j, since) : sd_journal_seek_head(s->j);
	if (r < 0) {
		cli_error("%s: %s: %s", cmd, name, strerror(-r));
		goto fail;
	}
	r = rd_open_source(ret, name, &jsrc_ops, s, follow);
	if (r < 0)
		cli_error("%s: %s: %s", cmd, name, strerror(-r));
	return r;
fail:
	jsrc_done(s);
	return r == -EINVAL ? -EIO : r;
}
