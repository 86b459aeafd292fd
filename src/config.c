/* SPDX-License-Identifier: MIT */
/* Parsing of the CLRTRACE_* variables (see DESIGN.md "Configuration"). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "events.h"
#include "util.h"

static const char *const output_kind_names[_OUT_MAX] = {
	[OUT_FILE] = "file",
	[OUT_JOURNAL] = "journal",
	[OUT_STDERR] = "stderr",
};

/* Name of an output kind. */
const char *ct_output_kind_to_string(enum ct_output_kind k)
{
	return (k >= 0 && k < _OUT_MAX) ? output_kind_names[k] : NULL;
}

/* Split a comma list into trimmed, non-empty items; calls fn on each. */
static int for_each_item(const char *s, int (*fn)(const char *item, void *ud), void *ud)
{
	_cleanup_free_ char *copy = strdup(s);
	char *save = NULL;
	int r;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = strstrip(tok);
		if (!*tok)
			continue;
		r = fn(tok, ud);
		if (r < 0)
			return r;
	}
	return 0;
}

struct events_state {
	unsigned set;
	bool absolute_seen;
	const char **why;
};

/* One item of CLRTRACE_EVENTS. */
static int events_item(const char *item, void *ud)
{
	struct events_state *st = ud;
	char sign = 0;
	enum ct_category cat;

	if (*item == '+' || *item == '-')
		sign = *item++;
	if (strcmp(item, "all") == 0) {
		if (sign == '-')
			goto bad;
		for (int i = 0; i < _CAT_MAX; i++)
			st->set |= 1u << i;
		st->absolute_seen = true;
		return 0;
	}
	if (strcmp(item, "none") == 0 && !sign) {
		st->set = 0;
		st->absolute_seen = true;
		return 0;
	}
	cat = ct_category_from_string(item);
	if (cat < 0 || !ct_categories[cat].optional)
		goto bad;
	if (sign == '-')
		st->set &= ~(1u << cat);
	else {
		if (!sign && !st->absolute_seen) {
			st->set = 0; /* a bare name starts from nothing */
			st->absolute_seen = true;
		}
		st->set |= 1u << cat;
	}
	return 0;
bad:
	*st->why = "accepted: a comma list of exceptions, frames, loader, classes, threads, suspend, "
		   "transitions, gc, jit, all, none, or +cat/-cat against the default";
	return -EINVAL;
}

/* CLRTRACE_EVENTS → bit set of categories (runtime and trace always on). */
int config_parse_events(const char *s, unsigned *ret, const char **why)
{
	struct events_state st = { .set = ct_default_categories(), .why = why };
	int r;

	r = for_each_item(s, events_item, &st);
	if (r < 0)
		return r;
	*ret = st.set | (1u << CAT_RUNTIME) | (1u << CAT_TRACE);
	return 0;
}

struct outputs_state {
	struct ct_output *v;
	size_t n;
	const char **why;
};

/* One item of CLRTRACE_OUTPUT. */
static int outputs_item(const char *item, void *ud)
{
	struct outputs_state *st = ud;
	struct ct_output o = { 0 };
	struct ct_output *nv;

	if (strcmp(item, "journal") == 0)
		o.kind = OUT_JOURNAL;
	else if (strcmp(item, "stderr") == 0)
		o.kind = OUT_STDERR;
	else if (startswith(item, "file:") && item[5]) {
		o.kind = OUT_FILE;
		o.path = strdup(item + 5);
		if (!o.path)
			return -ENOMEM;
		/* validate the template now, not at open time */
		_cleanup_free_ char *test = config_expand_path(o.path, 1, "x", 0);
		if (!test) {
			free(o.path);
			*st->why = "a file template may hold only %p, %n, %t and %%";
			return -EINVAL;
		}
	} else {
		*st->why = "accepted: a comma list of file:PATH, journal, stderr";
		return -EINVAL;
	}
	for (size_t i = 0; i < st->n; i++)
		if (st->v[i].kind == o.kind && o.kind != OUT_FILE) {
			free(o.path);
			return 0; /* journal twice is journal once */
		}
	nv = realloc(st->v, (st->n + 1) * sizeof(*nv));
	if (!nv) {
		free(o.path);
		return -ENOMEM;
	}
	st->v = nv;
	st->v[st->n++] = o;
	return 0;
}

/* Free a list of outputs. */
static void outputs_free(struct ct_output *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* CLRTRACE_OUTPUT → c->outputs (replaces what was there on success). */
int config_parse_outputs(const char *s, struct ct_config *c, const char **why)
{
	struct outputs_state st = { .why = why };
	int r;

	r = for_each_item(s, outputs_item, &st);
	if (r == 0 && st.n == 0) {
		*why = "accepted: a comma list of file:PATH, journal, stderr";
		r = -EINVAL;
	}
	if (r < 0) {
		outputs_free(st.v, st.n);
		return r;
	}
	outputs_free(c->outputs, c->n_outputs);
	c->outputs = st.v;
	c->n_outputs = st.n;
	return 0;
}

struct globs_state {
	struct ct_globs g;
	bool allow_limits;
	const char **why;
};

/* One item of a glob list: [!]glob[:N]. */
static int globs_item(const char *item, void *ud)
{
	struct globs_state *st = ud;
	struct ct_glob gl = { 0 };
	struct ct_glob *nv;
	const char *colon;
	size_t len;

	if (*item == '!') {
		gl.exclude = true;
		item++;
	}
	colon = strrchr(item, ':');
	len = colon ? (size_t)(colon - item) : strlen(item);
	if (colon) {
		char *end;
		unsigned long v;

		if (!st->allow_limits || gl.exclude)
			goto bad;
		errno = 0;
		v = strtoul(colon + 1, &end, 10);
		if (errno || end == colon + 1 || (*end && strcmp(end, "/s") != 0) || v == 0 || v > 1000000)
			goto bad;
		gl.limit = (unsigned)v;
	}
	if (len == 0)
		goto bad;
	gl.pattern = strndup(item, len);
	if (!gl.pattern)
		return -ENOMEM;
	nv = realloc(st->g.items, (st->g.n + 1) * sizeof(*nv));
	if (!nv) {
		free(gl.pattern);
		return -ENOMEM;
	}
	st->g.items = nv;
	st->g.items[st->g.n++] = gl;
	return 0;
bad:
	*st->why = st->allow_limits
		? "accepted: a comma list of type globs, !glob to exclude, glob:N to keep at most N a second"
		: "accepted: a comma list of program-name globs, !glob to exclude";
	return -EINVAL;
}

/* Free a glob list. */
void globs_done(struct ct_globs *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->items[i].pattern);
	free(g->items);
	*g = (struct ct_globs){ 0 };
}

/* "[!]glob[:N],…" → *ret. */
int config_parse_globs(const char *s, bool allow_limits, struct ct_globs *ret, const char **why)
{
	struct globs_state st = { .allow_limits = allow_limits, .why = why };
	int r;

	r = for_each_item(s, globs_item, &st);
	if (r < 0) {
		globs_done(&st.g);
		return r;
	}
	globs_done(ret);
	*ret = st.g;
	return 0;
}

/* Excluded if any !glob matches; else included if there are no include
 * globs or one matches (the first such gives the limit). */
bool globs_match(const struct ct_globs *g, const char *name, unsigned *limit)
{
	bool have_include = false, included = false;
	unsigned lim = 0;

	for (size_t i = 0; i < g->n; i++) {
		const struct ct_glob *gl = &g->items[i];
		bool m = fnmatch(gl->pattern, name, 0) == 0;

		if (gl->exclude) {
			if (m)
				return false;
			continue;
		}
		have_include = true;
		if (m && !included) {
			included = true;
			lim = gl->limit;
		}
	}
	if (limit)
		*limit = lim;
	return !have_include || included;
}

/* Expand %p, %n, %t and %% in a file template; NULL on a bad template. */
char *config_expand_path(const char *tmpl, int pid, const char *name, long long start_time)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	for (const char *p = tmpl; *p; p++) {
		if (*p != '%') {
			fputc(*p, f);
			continue;
		}
		switch (*++p) {
		case 'p': fprintf(f, "%d", pid); break;
		case 'n': fputs(name, f); break;
		case 't': fprintf(f, "%lld", start_time); break;
		case '%': fputc('%', f); break;
		default:
			fclose(f);
			return NULL;
		}
	}
	if (fclose(f) != 0)
		return NULL;
	return TAKE_PTR(buf);
}

/* "BURST/SECONDS", "BURST" (per 30 s) or "off"; leaves the outputs alone
 * on error. */
int config_parse_ratelimit(const char *v, unsigned *burst, unsigned *interval_s, const char **why)
{
	unsigned long b, s = CT_JOURNAL_INTERVAL_S;
	char *end;

	if (streq(v, "off") || streq(v, "0")) {
		*burst = 0;
		*interval_s = 0;
		return 0;
	}
	errno = 0;
	b = strtoul(v, &end, 10);
	if (errno || end == v || *v == '-' || b == 0 || b > 100000000ul)
		goto bad;
	if (*end == '/') {
		const char *p = end + 1;

		s = strtoul(p, &end, 10);
		if (errno || end == p || *p == '-' || s == 0 || s > 86400ul || (*end && strcmp(end, "s") != 0))
			goto bad;
	} else if (*end)
		goto bad;
	*burst = (unsigned)b;
	*interval_s = (unsigned)s;
	return 0;
bad:
	*why = "accepted: BURST/SECONDS such as 10000/30, BURST, or off";
	return -EINVAL;
}

/* The program's name as CLRTRACE_PROCESSES, %n and the journal see it:
 * app for "dotnet [exec] [--opts] app.dll", else the basename of argv[0].
 * NULL for the dotnet host running something else ("dotnet build"). */
char *config_program_name(char *const *argv)
{
	const char *b = strrchr(argv[0], '/');

	b = b ? b + 1 : argv[0];
	if (strcmp(b, "dotnet") != 0)
		return strdup(*b ? b : "dotnet");
	for (int i = 1; argv[i]; i++) {
		size_t l = strlen(argv[i]);

		if (l > 4 && strcmp(argv[i] + l - 4, ".dll") == 0) {
			const char *d = strrchr(argv[i], '/');

			d = d ? d + 1 : argv[i];
			return strndup(d, strlen(d) - 4);
		}
		if (argv[i][0] == '-') {
			/* host options (--roll-forward Major, --depsfile F) take a value */
			if (argv[i + 1] && argv[i + 1][0] != '-' && !strstr(argv[i + 1], ".dll"))
				i++;
			continue;
		}
		if (strcmp(argv[i], "exec") != 0)
			break;
	}
	return NULL;
}

/* Report one bad value: the variable, the value, what is accepted. */
static void warn_bad(ct_warn_fn warn, void *ud, const char *var, const char *val,
		     const char *why, const char *fallback)
{
	char *line = NULL;

	if (!warn)
		return;
	if (asprintf(&line, "%s='%s' is invalid (%s); %s", var, val, why, fallback) < 0)
		return;
	warn(ud, line);
	free(line);
}

/* Fill *c from the environment, reporting and defaulting bad values. */
int config_load(struct ct_config *c, ct_getenv_fn get, ct_warn_fn warn, void *ud)
{
	const char *why = NULL, *v;
	int r;

	*c = (struct ct_config){ .messages = true, .flush_ms = 200, .journal_burst = CT_JOURNAL_BURST,
				 .journal_interval_s = CT_JOURNAL_INTERVAL_S };
	c->categories = ct_default_categories();

	r = config_parse_outputs(CT_DEFAULT_OUTPUT, c, &why);
	if (r < 0)
		return r;

	v = get("CLRTRACE_OUTPUT");
	if (v) {
		r = config_parse_outputs(v, c, &why);
		if (r == -EINVAL)
			warn_bad(warn, ud, "CLRTRACE_OUTPUT", v, why, "using " CT_DEFAULT_OUTPUT);
		else if (r < 0)
			return r;
	}
	v = get("CLRTRACE_EVENTS");
	if (v) {
		r = config_parse_events(v, &c->categories, &why);
		if (r == -EINVAL)
			warn_bad(warn, ud, "CLRTRACE_EVENTS", v, why,
				 "using exceptions,loader,threads,suspend");
		else if (r < 0)
			return r;
	}
	c->categories |= (1u << CAT_RUNTIME) | (1u << CAT_TRACE);
	v = get("CLRTRACE_EXCEPTIONS");
	if (v) {
		r = config_parse_globs(v, true, &c->exceptions, &why);
		if (r == -EINVAL)
			warn_bad(warn, ud, "CLRTRACE_EXCEPTIONS", v, why, "tracing every exception");
		else if (r < 0)
			return r;
	}
	v = get("CLRTRACE_PROCESSES");
	if (v) {
		r = config_parse_globs(v, false, &c->processes, &why);
		if (r == -EINVAL)
			warn_bad(warn, ud, "CLRTRACE_PROCESSES", v, why, "tracing every process");
		else if (r < 0)
			return r;
	}
	v = get("CLRTRACE_MESSAGES");
	if (v) {
		if (strcmp(v, "0") == 0)
			c->messages = false;
		else if (strcmp(v, "1") != 0)
			warn_bad(warn, ud, "CLRTRACE_MESSAGES", v, "accepted: 0 or 1", "using 1");
	}
	v = get("CLRTRACE_FLUSH_MS");
	if (v) {
		char *end;
		unsigned long ms;

		errno = 0;
		ms = strtoul(v, &end, 10);
		if (errno || end == v || *end || ms > 60000 || *v == '-')
			warn_bad(warn, ud, "CLRTRACE_FLUSH_MS", v, "accepted: 0 to 60000 milliseconds", "using 200");
		else
			c->flush_ms = (unsigned)ms;
	}
	v = get("CLRTRACE_JOURNAL_RATELIMIT");
	if (v && config_parse_ratelimit(v, &c->journal_burst, &c->journal_interval_s, &why) < 0)
		warn_bad(warn, ud, "CLRTRACE_JOURNAL_RATELIMIT", v, why, "using 10000/30");
	v = get("CLRTRACE_IDENT");
	if (v) {
		bool ok = *v && strlen(v) <= 64;

		for (const char *p = v; ok && *p; p++)
			ok = (unsigned char)*p > ' ' && *p != '=' && (unsigned char)*p < 0x7f;
		if (!ok)
			warn_bad(warn, ud, "CLRTRACE_IDENT", v,
				 "accepted: 1 to 64 printable characters, no spaces or '='",
				 "using the program's name");
		else if (!(c->ident = strdup(v)))
			return -ENOMEM;
	}
	return 0;
}

/* Free what config_load allocated. */
void config_done(struct ct_config *c)
{
	outputs_free(c->outputs, c->n_outputs);
	globs_done(&c->exceptions);
	globs_done(&c->processes);
	free(c->ident);
	*c = (struct ct_config){ 0 };
}
