/* SPDX-License-Identifier: MIT */
/* Parsing of the CLRTRACE_* variables, as config.def lists them. */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/escape.h"
#include "common/strtable.h"
#include "common/vocabulary.h"
#include "common/util.h"

static const char *const ct_output_kind_table[_OUT_MAX] = {
	[OUT_FILE] = "file",
	[OUT_JOURNAL] = "journal",
	[OUT_STDERR] = "stderr",
};

/* Name of an output kind, and an output kind by its name. */
DEFINE_STRING_TABLE_LOOKUP(ct_output_kind, enum ct_output_kind, _OUT_INVALID);

static const char *const ct_compress_table[_COMPRESS_MAX] = {
	[COMPRESS_ZSTD] = "zstd",
	[COMPRESS_NONE] = "none",
};
DEFINE_STRING_TABLE_LOOKUP(ct_compress, enum ct_compress, _COMPRESS_INVALID);

/* What a list accepts, and the reasons it can be refused, as whole
 * phrases: a parser hands out static text only. */
struct list_kind {
	const char *bad, *empty, *empty_item, *glob_bracket, *glob_escape;
};
#define LIST_KIND(accepted) {                                                                   \
		.bad = accepted,                                                                 \
		.empty = "an empty value; " accepted,                                            \
		.empty_item = "an empty item in the list; " accepted,                            \
		.glob_bracket = "a '[' without its ']' (\\[ matches a literal '['); " accepted, \
		.glob_escape = "a '\\' at the end of a glob; " accepted,                         \
	}

static const struct list_kind events_kind = LIST_KIND(
	"accepted: a comma list of exceptions, frames, loader, classes, threads, suspend, "
	"transitions, gc, jit, stacks, all, none, or +cat/-cat against the default");
#define OUTPUTS_ACCEPTED                                                                   \
	"accepted: a comma list of file:PATH, journal, stderr; after file:PATH, its options "   \
	"max-size=SIZE (K, M, G; 0: never rotate), keep=N (0: all), min-free=PERCENT, compress=zstd|none"
static const struct list_kind outputs_kind = LIST_KIND(OUTPUTS_ACCEPTED);
static const struct list_kind exceptions_kind = LIST_KIND(
	"accepted: a comma list of type globs, !glob to exclude, glob:N to keep at most N a second");
static const struct list_kind processes_kind = LIST_KIND(
	"accepted: a comma list of program-name globs, !glob to exclude");

/* Split a comma list into trimmed items and call fn on each; an empty
 * value or an empty item ("a,,b", "a,") is refused, not skipped. */
static int for_each_item(const char *s, const struct list_kind *k, const char **why,
			 int (*fn)(const char *item, void *ud), void *ud)
{
	_cleanup_free_ char *copy = strdup(s);
	char *rest, *tok;
	int r;

	if (!copy)
		return -ENOMEM;
	if (!*strstrip(copy)) {
		*why = k->empty;
		return -EINVAL;
	}
	rest = copy;
	while ((tok = strsep(&rest, ","))) {
		tok = strstrip(tok);
		if (!*tok) {
			*why = k->empty_item;
			return -EINVAL;
		}
		r = fn(tok, ud);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Is this a glob fnmatch() reads as written: every '[' closed, no '\\' at
 * the end?  (fnmatch takes an unclosed '[' literally, which silently
 * matches nothing the user meant.)  0, or -EINVAL with *why set. */
static int glob_check(const char *p, const struct list_kind *k, const char **why)
{
	for (; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				goto escape;
			continue;
		}
		if (*p != '[')
			continue;
		const char *q = p + 1;

		if (*q == '!' || *q == '^')
			q++;
		if (*q == ']') /* a ']' first in the set is one of its characters */
			q++;
		for (; *q && *q != ']'; q++) {
			if (*q == '\\' && q[1])
				q++;
			else if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
				/* [:class:], [.coll.], [=equiv=] */
				const char *e = strchr(q + 2, q[1]);

				while (e && e[1] != ']')
					e = strchr(e + 1, q[1]);
				if (!e)
					goto bracket;
				q = e + 1;
			}
		}
		if (!*q)
			goto bracket;
		p = q;
	}
	return 0;
bracket:
	*why = k->glob_bracket;
	return -EINVAL;
escape:
	*why = k->glob_escape;
	return -EINVAL;
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
	*st->why = events_kind.bad;
	return -EINVAL;
}

/* CLRTRACE_EVENTS → bit set of categories (runtime and trace always on). */
int config_parse_events(const char *s, unsigned *ret, const char **why)
{
	struct events_state st = { .set = ct_default_categories(), .why = why };
	int r;

	r = for_each_item(s, &events_kind, why, events_item, &st);
	if (r < 0)
		return r;
	*ret = st.set | (1u << CAT_RUNTIME) | (1u << CAT_TRACE);
	return 0;
}

/* SIZE: bytes, or K, M, G (KiB, MiB, GiB); at most 2^62. */
static int parse_size(const char *v, uint64_t *ret)
{
	uint64_t n = 0, mult = 1;
	const char *p = v;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (*p && !p[1] && strchr("kKmMgG", *p))
		mult = UINT64_C(1) << (*p == 'k' || *p == 'K' ? 10 : *p == 'm' || *p == 'M' ? 20 : 30);
	else if (*p)
		return -EINVAL;
	if (n > (UINT64_C(1) << 62) / mult)
		return -EINVAL;
	*ret = n * mult;
	return 0;
}

/* N in 0..MAX, with SUFFIX allowed after it (NULL: none). */
static int parse_small(const char *v, unsigned max, const char *suffix, unsigned *ret)
{
	uint64_t n;
	size_t l = strspn(v, "0123456789");

	if (l == 0 || l > 6 || (v[l] && (!suffix || strcmp(v + l, suffix) != 0)))
		return -EINVAL;
	n = strtoull(v, NULL, 10);
	if (n > max)
		return -EINVAL;
	*ret = (unsigned)n;
	return 0;
}

static int fopt_max_size(const char *v, struct ct_output *o)
{
	return parse_size(v, &o->max_size);
}

static int fopt_keep(const char *v, struct ct_output *o)
{
	return parse_small(v, 100000, NULL, &o->keep);
}

static int fopt_min_free(const char *v, struct ct_output *o)
{
	return parse_small(v, 99, "%", &o->min_free);
}

static int fopt_compress(const char *v, struct ct_output *o)
{
	enum ct_compress c = ct_compress_from_string(v);

	if (c < 0)
		return -EINVAL;
	o->compress = c;
	return 0;
}

/* The options of a file: output, the items after file:PATH (one row each;
 * man/clrtrace.1.in describes them under --output). */
static const struct file_option {
	const char *name;
	int (*parse)(const char *v, struct ct_output *o);
	const char *bad; /* why a bad value is refused */
} file_options[] = {
	{ "max-size", fopt_max_size, "max-size takes a size: bytes, or a number and K, M or G; " OUTPUTS_ACCEPTED },
	{ "keep", fopt_keep, "keep takes the number of files kept, 0 to 100000 (0: all); " OUTPUTS_ACCEPTED },
	{ "min-free", fopt_min_free, "min-free takes a percentage, 0 to 99 (0: no check); " OUTPUTS_ACCEPTED },
	{ "compress", fopt_compress, "compress takes zstd or none; " OUTPUTS_ACCEPTED },
};

/* Apply ITEM, NAME=VALUE, to the file output O. */
static int file_option(const char *item, struct ct_output *o, const char **why)
{
	const char *eq = strchr(item, '=');

	for (size_t i = 0; i < ELEMENTSOF(file_options); i++) {
		const struct file_option *fo = &file_options[i];

		if (strlen(fo->name) != (size_t)(eq - item) || strncmp(item, fo->name, (size_t)(eq - item)) != 0)
			continue;
		if (!o) {
			*why = "a file option that follows no file:PATH; " OUTPUTS_ACCEPTED;
			return -EINVAL;
		}
		if (fo->parse(eq + 1, o) < 0) {
			*why = fo->bad;
			return -EINVAL;
		}
		return 0;
	}
	*why = "an unknown file option; " OUTPUTS_ACCEPTED;
	return -EINVAL;
}

void config_file_defaults(struct ct_output *o)
{
	o->max_size = CT_DEFAULT_MAX_SIZE;
	o->keep = CT_DEFAULT_KEEP;
	o->min_free = CT_DEFAULT_MIN_FREE;
	o->compress = COMPRESS_ZSTD;
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

	if (!startswith(item, "file:") && strchr(item, '='))
		return file_option(item, st->n && st->v[st->n - 1].kind == OUT_FILE ? &st->v[st->n - 1] : NULL,
				   st->why);
	if (startswith(item, "file:") && item[5]) {
		o.kind = OUT_FILE;
		o.path = strdup(item + 5);
		if (!o.path)
			return -ENOMEM;
		/* validate the template now, not at open time */
		_cleanup_free_ char *test = config_expand_path(o.path, 1, "x", 0);
		if (!test) {
			free(o.path);
			*st->why = "a file template may hold only %p, %n, %t and %%; " OUTPUTS_ACCEPTED;
			return -EINVAL;
		}
		for (const char *p = o.path; *p; p++)
			if ((unsigned char)*p < ' ' || *p == 0x7f) {
				free(o.path);
				*st->why = "a control character in a file path; " OUTPUTS_ACCEPTED;
				return -EINVAL;
			}
	} else if ((o.kind = ct_output_kind_from_string(item)) != OUT_JOURNAL && o.kind != OUT_STDERR) {
		*st->why = outputs_kind.bad;
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

	r = for_each_item(s, &outputs_kind, why, outputs_item, &st);
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
	const struct list_kind *kind;
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
	if (colon && strchr(colon, ']'))
		colon = NULL; /* the ':' of a [:class:], not a limit */
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
	if (glob_check(gl.pattern, st->kind, st->why) < 0) {
		free(gl.pattern);
		return -EINVAL;
	}
	nv = realloc(st->g.items, (st->g.n + 1) * sizeof(*nv));
	if (!nv) {
		free(gl.pattern);
		return -ENOMEM;
	}
	st->g.items = nv;
	st->g.items[st->g.n++] = gl;
	return 0;
bad:
	*st->why = st->kind->bad;
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
	struct globs_state st = { .allow_limits = allow_limits, .why = why,
				  .kind = allow_limits ? &exceptions_kind : &processes_kind };
	int r;

	r = for_each_item(s, st.kind, why, globs_item, &st);
	if (r < 0) {
		globs_done(&st.g);
		return r;
	}
	globs_done(ret);
	*ret = st.g;
	return 0;
}

/* NAME as a glob matching only itself (see config.h). */
char *config_glob_escape(const char *name)
{
	char *out, *o;

	if (!*name || strpbrk(name, ",:") || strlen(name) > (SIZE_MAX - 1) / 2)
		return NULL;
	out = o = malloc(strlen(name) * 2 + 1);
	if (!out)
		return NULL;
	for (const char *p = name; *p; p++) {
		if (strchr("*?[]\\", *p) || (p == name && *p == '!'))
			*o++ = '\\';
		/* cppcheck-suppress uninitdata -- o is written, not read */
		*o++ = *p;
	}
	*o = 0;
	return out;
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

/* "N/SECONDS", "N" (per DEF_S seconds) or "off"; leaves the outputs alone
 * on error. */
static int parse_per_interval(const char *v, unsigned long def_s, unsigned *burst, unsigned *interval_s)
{
	unsigned long b, s = def_s;
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
	return -EINVAL;
}

int config_parse_ratelimit(const char *v, unsigned *burst, unsigned *interval_s, const char **why)
{
	int r = parse_per_interval(v, CT_JOURNAL_INTERVAL_S, burst, interval_s);

	if (r < 0)
		*why = "accepted: BURST/SECONDS such as 10000/30, BURST, or off";
	return r;
}

int config_parse_budget(const char *v, unsigned *errors, unsigned *interval_s, const char **why)
{
	int r = parse_per_interval(v, 1, errors, interval_s);

	if (r < 0)
		*why = "accepted: ERRORS/SECONDS such as 1000/10, ERRORS (a second), or off";
	return r;
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
	_cleanup_free_ char *quoted = escape_str(val, CT_QUOTE_MAX, ESC_BACKSLASH);
	size_t len = strlen(val);
	char *line = NULL, size[40] = "";

	if (!warn || !quoted)
		return;
	if (len > CT_QUOTE_MAX) /* a long value is cut: say how long it was */
		snprintf(size, sizeof(size), " (%zu bytes)", len);
	if (asprintf(&line, "%s='%s'%s is invalid (%s); %s", var, quoted, size, why, fallback) < 0)
		return;
	warn(ud, line);
	free(line);
}

/* CLRTRACE_OUTPUT → c->outputs. */
static int var_outputs(const char *v, struct ct_config *c, const char **why)
{
	return config_parse_outputs(v, c, why);
}

/* CLRTRACE_EVENTS → c->categories. */
static int var_events(const char *v, struct ct_config *c, const char **why)
{
	return config_parse_events(v, &c->categories, why);
}

/* CLRTRACE_EXCEPTIONS → c->exceptions. */
static int var_exceptions(const char *v, struct ct_config *c, const char **why)
{
	return config_parse_globs(v, true, &c->exceptions, why);
}

/* CLRTRACE_PROCESSES → c->processes. */
static int var_processes(const char *v, struct ct_config *c, const char **why)
{
	return config_parse_globs(v, false, &c->processes, why);
}

/* CLRTRACE_MESSAGES → c->messages. */
static int var_messages(const char *v, struct ct_config *c, const char **why)
{
	if (!streq(v, "0") && !streq(v, "1")) {
		*why = "accepted: 0 or 1";
		return -EINVAL;
	}
	c->messages = streq(v, "1");
	return 0;
}

/* CLRTRACE_IDENT → c->ident. */
static int var_ident(const char *v, struct ct_config *c, const char **why)
{
	bool ok = *v && strlen(v) <= 64;
	char *d;

	for (const char *p = v; ok && *p; p++)
		ok = (unsigned char)*p > ' ' && *p != '=' && (unsigned char)*p < 0x7f;
	if (!ok) {
		*why = "accepted: 1 to 64 printable characters, no spaces or '='";
		return -EINVAL;
	}
	d = strdup(v);
	if (!d)
		return -ENOMEM;
	free(c->ident);
	c->ident = d;
	return 0;
}

/* CLRTRACE_JOURNAL_RATELIMIT → c->journal_burst, c->journal_interval_s. */
static int var_ratelimit(const char *v, struct ct_config *c, const char **why)
{
	return config_parse_ratelimit(v, &c->journal_burst, &c->journal_interval_s, why);
}

/* CLRTRACE_BUDGET → c->budget_errors, c->budget_interval_s. */
static int var_budget(const char *v, struct ct_config *c, const char **why)
{
	return config_parse_budget(v, &c->budget_errors, &c->budget_interval_s, why);
}

/* CLRTRACE_FLUSH_MS → c->flush_ms. */
static int var_flush_ms(const char *v, struct ct_config *c, const char **why)
{
	char *end;
	unsigned long ms;

	errno = 0;
	ms = strtoul(v, &end, 10);
	if (errno || end == v || *end || ms > 60000 || *v == '-') {
		*why = "accepted: 0 to 60000 milliseconds";
		return -EINVAL;
	}
	c->flush_ms = (unsigned)ms;
	return 0;
}

/* CLRTRACE_STACK_DEPTH → c->stack_depth. */
static int var_stack_depth(const char *v, struct ct_config *c, const char **why)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > CT_STACK_DEPTH_MAX || *v == '-') {
		*why = "accepted: 1 to " CT_STACK_DEPTH_MAX_S " frames";
		return -EINVAL;
	}
	c->stack_depth = (unsigned)n;
	return 0;
}

static void handler_rules_done(struct ct_handler_rules *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->items[i].prefix);
		free(h->items[i].label);
	}
	free(h->items);
	*h = (struct ct_handler_rules){ 0 };
}

/* CLRTRACE_HANDLERS → c->handlers: PREFIX=KIND[:LABEL], ';'-separated. */
static int var_handlers(const char *v, struct ct_config *c, const char **why)
{
	struct ct_handler_rules h = { 0 };
	const char *p = v;

	if (!*v) {
		*why = "accepted: PREFIX=KIND[:LABEL] rules, ';'-separated";
		return -EINVAL;
	}
	handler_rules_done(&c->handlers);
	while (*p) {
		const char *end = strchr(p, ';'), *eq, *colon;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char kind[16];
		struct ct_handler_rule *n;
		int k;

		eq = memchr(p, '=', len);
		colon = eq ? memchr(eq, ':', len - (size_t)(eq - p)) : NULL;
		if (!eq || eq == p || (size_t)((colon ? colon : p + len) - eq - 1) >= sizeof(kind)) {
			*why = "accepted: PREFIX=KIND[:LABEL] rules, ';'-separated";
			handler_rules_done(&h);
			return -EINVAL;
		}
		memcpy(kind, eq + 1, (size_t)((colon ? colon : p + len) - eq - 1));
		kind[(colon ? colon : p + len) - eq - 1] = 0;
		if ((k = ct_handler_kind_from_string(kind)) < 0) {
			*why = "KIND is one of program, async, framework, runtime";
			handler_rules_done(&h);
			return -EINVAL;
		}
		n = realloc(h.items, (h.n + 1) * sizeof(*n));
		if (!n) {
			handler_rules_done(&h);
			return -ENOMEM;
		}
		h.items = n;
		n = &h.items[h.n++];
		*n = (struct ct_handler_rule){ .prefix = strndup(p, (size_t)(eq - p)), .kind = k,
					       .label = colon ? strndup(colon + 1, len - (size_t)(colon + 1 - p)) : NULL };
		if (!n->prefix || (colon && !n->label)) {
			handler_rules_done(&h);
			return -ENOMEM;
		}
		p += len + (end ? 1 : 0);
	}
	c->handlers = h;
	return 0;
}

/* config.def as data: what config_load needs of each variable. */
static const struct {
	const char *name, *def, *fallback;
	int (*parse)(const char *v, struct ct_config *c, const char **why);
} vars[_CT_VAR_MAX] = {
#define CT_VAR(NAME, field, parse_, default_, fallback_, ...) \
	[CT_VAR_##NAME] = { .name = "CLRTRACE_" #NAME, .def = default_, .fallback = fallback_, .parse = var_##parse_ },
#include "common/config.def"
};
/* each row's field is a member of struct ct_config */
#define CT_VAR(NAME, field, ...) \
	_Static_assert(sizeof(((struct ct_config *)0)->field) > 0, "CLRTRACE_" #NAME ": no such field");
#include "common/config.def"

/* Fill *c from the environment, reporting and defaulting bad values. */
int config_load(struct ct_config *c, ct_getenv_fn get, ct_warn_fn warn, void *ud)
{
	const char *why = NULL, *v;
	int r;

	*c = (struct ct_config){ 0 };
	for (size_t i = 0; i < ELEMENTSOF(vars); i++)
		if (vars[i].def && (r = vars[i].parse(vars[i].def, c, &why)) < 0)
			return r; /* -EINVAL only for a bad default, which the unit test catches */
	for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
		v = get(vars[i].name);
		if (!v)
			continue;
		r = vars[i].parse(v, c, &why);
		if (r == -EINVAL)
			warn_bad(warn, ud, vars[i].name, v, why, vars[i].fallback);
		else if (r < 0)
			return r;
	}
	return 0;
}

/* Free what config_load allocated. */
void config_done(struct ct_config *c)
{
	outputs_free(c->outputs, c->n_outputs);
	globs_done(&c->exceptions);
	globs_done(&c->processes);
	handler_rules_done(&c->handlers);
	free(c->ident);
	*c = (struct ct_config){ 0 };
}
