/* SPDX-License-Identifier: MIT */
/* Unit tests of the CLRTRACE_* parser (src/common/config.c): no runtime needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/escape.h"
#include "common/vocabulary.h"
#include "unit.h"
#include "common/util.h"

static const char *const *env_now; /* NAME=VALUE pairs for fake_getenv */
static char warned[4096];


/* getenv over env_now. */
static const char *fake_getenv(const char *name)
{
	size_t l = strlen(name);

	for (const char *const *e = env_now; e && *e; e++)
		if (strncmp(*e, name, l) == 0 && (*e)[l] == '=')
			return *e + l + 1;
	return NULL;
}

/* Collect warnings, one per line. */
static void collect(void *ud, const char *line)
{
	strncat(warned, line, sizeof(warned) - strlen(warned) - 2);
	strcat(warned, "\n");
}

/* Load a configuration from ENV; warnings land in `warned`. */
static void load(struct ct_config *c, const char *const *env)
{
	env_now = env;
	warned[0] = 0;
	if (config_load(c, fake_getenv, collect, NULL) < 0) {
		printf("FAIL: config_load failed\n");
		exit(1);
	}
}

static unsigned cats(const char *const *names)
{
	unsigned s = (1u << CAT_RUNTIME) | (1u << CAT_TRACE);

	for (; *names; names++)
		s |= 1u << ct_category_from_string(*names);
	return s;
}

static void test_defaults(void)
{
	struct ct_config c;

	load(&c, (const char *const[]){ NULL });
	CHECK(c.categories == cats((const char *[]){ "exceptions", "loader", "threads", "suspend", NULL }),
	      "default categories are exceptions,loader,threads,suspend");
	CHECK(c.n_outputs == 1 && c.outputs[0].kind == OUT_FILE && strcmp(c.outputs[0].path, "clrtrace-%n-%p.jsonl") == 0,
	      "default output is file:clrtrace-%%n-%%p.jsonl");
	CHECK(c.messages && !c.ident && c.exceptions.n == 0 && c.processes.n == 0, "messages on, no filters");
	CHECK(warned[0] == 0, "no warnings for an empty environment");
	config_done(&c);
}

static const struct {
	const char *value;
	const char *want[10]; /* categories expected; NULL-terminated */
	bool bad;
} events_cases[] = {
	{ "exceptions", { "exceptions" } },
	{ "+gc", { "exceptions", "loader", "threads", "suspend", "gc" } },
	{ "-loader,+jit", { "exceptions", "threads", "suspend", "jit" } },
	{ "loader, threads", { "loader", "threads" } },
	{ "all", { "exceptions", "loader", "classes", "threads", "suspend", "transitions", "gc", "jit" } },
	{ "none", { NULL } },
	{ "none,+exceptions", { "exceptions" } },
	{ "exceptons", { "exceptions", "loader", "threads", "suspend" }, true },
	{ "-all", { "exceptions", "loader", "threads", "suspend" }, true },
	{ "runtime", { "exceptions", "loader", "threads", "suspend" }, true },
};

static void test_events(void)
{
	for (size_t i = 0; i < sizeof(events_cases) / sizeof(events_cases[0]); i++) {
		char var[128];
		struct ct_config c;

		snprintf(var, sizeof(var), "CLRTRACE_EVENTS=%s", events_cases[i].value);
		load(&c, (const char *const[]){ var, NULL });
		unsigned want = cats(events_cases[i].want);
		if (strcmp(events_cases[i].value, "all") == 0)
			want = (1u << _CAT_MAX) - 1;
		CHECK(c.categories == want, "CLRTRACE_EVENTS='%s' gives the expected categories (got 0x%x, want 0x%x)",
		      events_cases[i].value, c.categories, want);
		if (events_cases[i].bad)
			CHECK(strstr(warned, "CLRTRACE_EVENTS='") && strstr(warned, events_cases[i].value) &&
				      strstr(warned, "accepted:") && !strchr(strchr(warned, '\n') + 1, '\n'),
			      "CLRTRACE_EVENTS='%s' is reported in one line naming the variable, the value and what is accepted",
			      events_cases[i].value);
		else
			CHECK(!warned[0], "CLRTRACE_EVENTS='%s' draws no warning", events_cases[i].value);
		config_done(&c);
	}
}

static void test_outputs(void)
{
	struct ct_config c;

	load(&c, (const char *const[]){ "CLRTRACE_OUTPUT=journal,file:/tmp/a-%p.jsonl,stderr,journal", NULL });
	CHECK(c.n_outputs == 3 && c.outputs[0].kind == OUT_JOURNAL && c.outputs[1].kind == OUT_FILE &&
		      strcmp(c.outputs[1].path, "/tmp/a-%p.jsonl") == 0 && c.outputs[2].kind == OUT_STDERR,
	      "journal,file:…,stderr,journal gives three outputs, journal once");
	config_done(&c);

	static const char *const bad[] = { "CLRTRACE_OUTPUT=syslog", "CLRTRACE_OUTPUT=file:", "CLRTRACE_OUTPUT=file:/x/%q",
					   "CLRTRACE_OUTPUT=,", NULL };
	for (const char *const *b = bad; *b; b++) {
		load(&c, (const char *const[]){ *b, NULL });
		CHECK(c.n_outputs == 1 && c.outputs[0].kind == OUT_FILE && strstr(warned, "CLRTRACE_OUTPUT") &&
			      strstr(warned, "using file:clrtrace-%n-%p.jsonl"),
		      "%s falls back to the default with a warning", *b);
		config_done(&c);
	}
}

static void test_globs(void)
{
	struct ct_config c;
	unsigned limit = 0;

	load(&c, (const char *const[]){ "CLRTRACE_EXCEPTIONS=!System.OperationCanceledException,System.IO.*:5,System.*",
					"CLRTRACE_PROCESSES=!dotnet", NULL });
	CHECK(!warned[0], "valid globs draw no warning");
	CHECK(!globs_match(&c.exceptions, "System.OperationCanceledException", NULL), "an excluded type is excluded");
	CHECK(globs_match(&c.exceptions, "System.IO.IOException", &limit) && limit == 5,
	      "System.IO.IOException matches System.IO.*:5 with limit 5");
	CHECK(globs_match(&c.exceptions, "System.InvalidOperationException", &limit) && limit == 0,
	      "System.InvalidOperationException matches System.* without limit");
	CHECK(!globs_match(&c.exceptions, "App.MyException", NULL), "a type matching no include is left out");
	CHECK(!globs_match(&c.processes, "dotnet", NULL) && globs_match(&c.processes, "MyApp", NULL),
	      "CLRTRACE_PROCESSES=!dotnet excludes only dotnet");
	config_done(&c);

	load(&c, (const char *const[]){ "CLRTRACE_FLUSH_MS=50", NULL });
	CHECK(c.flush_ms == 50 && !warned[0], "CLRTRACE_FLUSH_MS=50 is taken");
	config_done(&c);
	load(&c, (const char *const[]){ "CLRTRACE_FLUSH_MS=-1", NULL });
	CHECK(c.flush_ms == 200 && strstr(warned, "CLRTRACE_FLUSH_MS='-1' is invalid (accepted: 0 to 60000"),
	      "CLRTRACE_FLUSH_MS=-1 is refused, 200 kept");
	config_done(&c);
	static const struct { const char *v; unsigned burst, interval; bool bad; } rl[] = {
		{ "500/10", 500, 10 }, { "2000", 2000, 30 }, { "off", 0, 0 }, { "100/5s", 100, 5 },
		{ "x/3", 10000, 30, true }, { "10/0", 10000, 30, true }, { "-5", 10000, 30, true },
	};
	for (size_t i = 0; i < sizeof(rl) / sizeof(rl[0]); i++) {
		char var[64];

		snprintf(var, sizeof(var), "CLRTRACE_JOURNAL_RATELIMIT=%s", rl[i].v);
		load(&c, (const char *const[]){ var, NULL });
		CHECK(c.journal_burst == rl[i].burst && c.journal_interval_s == rl[i].interval &&
			      !!strstr(warned, "CLRTRACE_JOURNAL_RATELIMIT=") == rl[i].bad,
		      "CLRTRACE_JOURNAL_RATELIMIT=%s gives %u/%u%s", rl[i].v, rl[i].burst, rl[i].interval,
		      rl[i].bad ? " with a warning" : "");
		config_done(&c);
	}
	load(&c, (const char *const[]){ "CLRTRACE_EXCEPTIONS=System.*:0", "CLRTRACE_PROCESSES=app:3",
					"CLRTRACE_MESSAGES=yes", "CLRTRACE_IDENT=my app", NULL });
	CHECK(strstr(warned, "CLRTRACE_EXCEPTIONS='System.*:0'") && strstr(warned, "CLRTRACE_PROCESSES='app:3'") &&
		      strstr(warned, "CLRTRACE_MESSAGES='yes'") && strstr(warned, "CLRTRACE_IDENT='my app'"),
	      "each bad value is reported by name and value");
	CHECK(c.exceptions.n == 0 && c.processes.n == 0 && c.messages && !c.ident, "bad values leave the defaults");
	config_done(&c);
}

static void test_expand(void)
{
	char *p = config_expand_path("/tmp/%n-%p-%t-%%.jsonl", 42, "App", 1700000000);

	CHECK(p && strcmp(p, "/tmp/App-42-1700000000-%.jsonl") == 0, "%%n %%p %%t %%%% expand (%s)", p ? p : "NULL");
	free(p);
	p = config_expand_path("/tmp/%x", 1, "a", 0);
	CHECK(!p, "an unknown %%x is refused");
	free(p);
}

static void test_program_name(void)
{
	static const struct { const char *argv[5]; const char *want; } cases[] = {
		{ { "dotnet", "app.dll" }, "app" },
		{ { "/usr/bin/dotnet", "exec", "--roll-forward", "Major", "/srv/x/My.App.dll" }, "My.App" },
		{ { "/usr/share/dotnet/dotnet", "/srv/x/My.App.dll" }, "My.App" },
		{ { "dotnet", "build" }, NULL },
		{ { "/opt/app/MyService", "--port", "80" }, "MyService" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = config_program_name((char *const *)cases[i].argv);
		bool same = got && cases[i].want ? strcmp(got, cases[i].want) == 0 : got == cases[i].want;

		CHECK(same, "program name of %s %s is %s (got %s)", cases[i].argv[0], cases[i].argv[1] ? cases[i].argv[1] : "",
		      cases[i].want ? cases[i].want : "NULL", got ? got : "NULL");
		free(got);
	}
}

/* Lines in `warned`. */
static int warned_lines(void)
{
	int n = 0;

	for (const char *p = warned; *p; p++)
		n += *p == '\n';
	return n;
}

/* Every malformed value is refused with one line that says why, and its
 * setting keeps the default (tracing stays on). */
static void test_malformed(void)
{
	static const struct { const char *var, *value, *why; } cases[] = {
		{ "CLRTRACE_EVENTS", "", "an empty value; accepted: a comma list of exceptions" },
		{ "CLRTRACE_EVENTS", "  ", "an empty value" },
		{ "CLRTRACE_EVENTS", "exceptions,", "an empty item in the list" },
		{ "CLRTRACE_EVENTS", "exceptions,,gc", "an empty item in the list" },
		{ "CLRTRACE_OUTPUT", "", "an empty value; accepted: a comma list of file:PATH" },
		{ "CLRTRACE_OUTPUT", "journal,", "an empty item in the list" },
		{ "CLRTRACE_OUTPUT", "file:/tmp/a\nb.jsonl", "a control character in a file path" },
		{ "CLRTRACE_EXCEPTIONS", "", "an empty value; accepted: a comma list of type globs" },
		{ "CLRTRACE_EXCEPTIONS", "[", "a '[' without its ']'" },
		{ "CLRTRACE_EXCEPTIONS", "System.[IO*:5", "a '[' without its ']'" },
		{ "CLRTRACE_EXCEPTIONS", "System.IO\\", "a '\\' at the end of a glob" },
		{ "CLRTRACE_PROCESSES", "", "an empty value; accepted: a comma list of program-name globs" },
		{ "CLRTRACE_PROCESSES", "[abc", "a '[' without its ']'" },
		{ "CLRTRACE_PROCESSES", "!x,[[:alpha:]", "a '[' without its ']'" },
		{ "CLRTRACE_PROCESSES", "!", "accepted: a comma list of program-name globs" },
		{ "CLRTRACE_MESSAGES", "", "accepted: 0 or 1" },
		{ "CLRTRACE_FLUSH_MS", "", "accepted: 0 to 60000" },
		{ "CLRTRACE_IDENT", "", "accepted: 1 to 64 printable" },
		{ "CLRTRACE_JOURNAL_RATELIMIT", "", "accepted: BURST/SECONDS" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char var[256], head[256];
		struct ct_config c;

		snprintf(var, sizeof(var), "%s=%s", cases[i].var, cases[i].value);
		load(&c, (const char *const[]){ var, NULL });
		_cleanup_free_ char *q = escape_str(cases[i].value, 0, ESC_BACKSLASH);
		snprintf(head, sizeof(head), "%s='%s' is invalid (", cases[i].var, q);
		CHECK(warned_lines() == 1 && strncmp(warned, head, strlen(head)) == 0 && strstr(warned, cases[i].why),
		      "%s='%s' is refused in one line saying '%s' (got: %.*s)", cases[i].var, q, cases[i].why,
		      (int)strcspn(warned, "\n"), warned);
		CHECK(c.n_outputs == 1 && c.outputs[0].kind == OUT_FILE && c.exceptions.n == 0 && c.processes.n == 0 &&
			      c.messages && c.flush_ms == 200 && !c.ident && c.journal_burst == CT_JOURNAL_BURST &&
			      c.categories == cats((const char *[]){ "exceptions", "loader", "threads", "suspend", NULL }),
		      "%s='%s' leaves every setting at its default", cases[i].var, q);
		CHECK(globs_match(&c.processes, "abc", NULL), "%s='%s': the program is still traced", cases[i].var, q);
		config_done(&c);
	}

	/* well-formed globs with brackets and escapes are taken as they are */
	struct ct_config c;
	load(&c, (const char *const[]){ "CLRTRACE_EXCEPTIONS=System.[IO]*,[]]x,[!a]b,a\\[b,*[\\]]:3",
					"CLRTRACE_PROCESSES=[[:upper:]]*,![^x]", NULL });
	CHECK(!warned[0] && c.exceptions.n == 5 && c.processes.n == 2, "closed sets, [:class:], \\[ are accepted (%s)",
	      warned);
	CHECK(globs_match(&c.exceptions, "a[b", NULL) && globs_match(&c.exceptions, "]x", NULL) &&
		      globs_match(&c.processes, "App", NULL) && !globs_match(&c.processes, "app", NULL),
	      "and match as fnmatch reads them");
	config_done(&c);
}

/* clrtrace run's CLRTRACE_PROCESSES for a program name matches that name
 * and nothing else, whatever characters it holds. */
static void test_glob_escape(void)
{
	static const char *const names[] = { "app", "app[1]", "a*b", "why?", "[", "back\\slash", "!bang", "x]" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		_cleanup_free_ char *g = config_glob_escape(names[i]);
		struct ct_globs gl = { 0 };
		const char *why = NULL;
		bool parsed = g && config_parse_globs(g, false, &gl, &why) == 0;

		CHECK(parsed && globs_match(&gl, names[i], NULL) && !globs_match(&gl, "app1", NULL) &&
			      !globs_match(&gl, "other", NULL),
		      "'%s' as a glob (%s) is accepted and matches only itself", names[i], g ? g : "NULL");
		globs_done(&gl);
	}
	_cleanup_free_ char *comma = config_glob_escape("a,b");
	CHECK(!comma, "a name with a comma cannot be a glob list item");
}

/* Error lines are one line, without terminal controls, and short. */
static void test_escape(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "plain" },
		{ "a\nb", "a\\nb" },
		{ "\x1b[31mred\x1b[0m", "\\x1B[31mred\\x1B[0m" },
		{ "tab\there\r", "tab\\there\\r" },
		{ "back\\slash", "back\\\\slash" },
		{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },      /* valid UTF-8 stays */
		{ "bad\xff\xc3(", "bad\\xFF\\xC3(" },                           /* invalid UTF-8 */
		{ "c1\xc2\x9b" "2J", "c1\\u{009B}2J" },                               /* C1 CSI */
		{ "rtl\xe2\x80\xae" "evil", "rtl\\u{202E}evil" },                     /* bidi override */
		{ "over\xc0\xaflong", "over\\xC0\\xAFlong" },
		{ "del\x7f", "del\\x7F" },
		{ "line\xe2\x80\xa8" "sep", "line\\u{2028}sep" },                     /* breaks a line */
		{ "alm\xd8\x9c" "x", "alm\\u{061C}x" },                                /* reorders it */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_free_ char *e = escape_str(cases[i].in, 0, ESC_BACKSLASH);

		CHECK(e && strcmp(e, cases[i].out) == 0, "escape #%zu gives %s (got %s)", i, cases[i].out, e ? e : "NULL");
	}
	_cleanup_free_ char *cut = escape_str("ab\xc3\xa9" "cd", 3, 0);
	CHECK(cut && strcmp(cut, "ab…") == 0, "a cut never splits a character (got %s)", cut ? cut : "NULL");

	/* a 100 KB value with a newline in it: one short line */
	size_t big = 100 * 1024;
	_cleanup_free_ char *var = malloc(big + 32);
	struct ct_config c;

	strcpy(var, "CLRTRACE_EVENTS=x\n");
	memset(var + strlen(var), 'y', big - 2);
	var[strlen("CLRTRACE_EVENTS=") + big] = 0;
	load(&c, (const char *const[]){ var, NULL });
	CHECK(warned_lines() == 1 && strlen(warned) < 600 && strstr(warned, "CLRTRACE_EVENTS='x\\nyyy") &&
		      strstr(warned, "yyy…' (102400 bytes) is invalid (accepted:"),
	      "a 100 KB value makes one line of %zu bytes, cut, with its size", strlen(warned));
	config_done(&c);
}

/* Do two configurations say the same? */
static bool same_config(const struct ct_config *a, const struct ct_config *b)
{
	if (a->categories != b->categories || a->n_outputs != b->n_outputs || a->exceptions.n != b->exceptions.n ||
	    a->processes.n != b->processes.n || a->messages != b->messages || a->flush_ms != b->flush_ms ||
	    a->journal_burst != b->journal_burst || a->journal_interval_s != b->journal_interval_s ||
	    !a->ident != !b->ident || (a->ident && strcmp(a->ident, b->ident) != 0))
		return false;
	for (size_t i = 0; i < a->n_outputs; i++)
		if (a->outputs[i].kind != b->outputs[i].kind || !a->outputs[i].path != !b->outputs[i].path ||
		    (a->outputs[i].path && strcmp(a->outputs[i].path, b->outputs[i].path) != 0))
			return false;
	return true;
}

/* config.def's rows: every default is the one the rest of the code
 * assumes, and every variable refuses a bad value in one line that ends
 * with its fallback, leaving everything at the defaults. */
static void test_table(void)
{
	static const struct { const char *name, *def, *fallback; } rows[] = {
#define CT_VAR(NAME, field, parse, default_, fallback_, ...) { "CLRTRACE_" #NAME, default_, fallback_ },
#include "common/config.def"
	};
	struct ct_config d, c;
	unsigned set, burst, interval;
	const char *why;

	CHECK(config_parse_events(CT_DEFAULT_EVENTS, &set, &why) == 0 &&
		      set == (ct_default_categories() | (1u << CAT_RUNTIME) | (1u << CAT_TRACE)),
	      "CT_DEFAULT_EVENTS (%s) is the vocabulary's default categories", CT_DEFAULT_EVENTS);
	CHECK(config_parse_ratelimit(CT_DEFAULT_RATELIMIT, &burst, &interval, &why) == 0 && burst == CT_JOURNAL_BURST &&
		      interval == CT_JOURNAL_INTERVAL_S,
	      "CT_DEFAULT_RATELIMIT (%s) is journald's %u/%u", CT_DEFAULT_RATELIMIT, CT_JOURNAL_BURST, CT_JOURNAL_INTERVAL_S);
	CHECK(ELEMENTSOF(rows) == _CT_VAR_MAX, "%zu rows, %d variables", ELEMENTSOF(rows), _CT_VAR_MAX);
	load(&d, (const char *const[]){ NULL });
	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		char var[256], tail[256];

		if (rows[i].def) {
			snprintf(var, sizeof(var), "%s=%s", rows[i].name, rows[i].def);
			load(&c, (const char *const[]){ var, NULL });
			CHECK(!warned[0] && same_config(&c, &d), "%s set to its default '%s' changes nothing (%s)",
			      rows[i].name, rows[i].def, warned);
			config_done(&c);
		}
		snprintf(var, sizeof(var), "%s=", rows[i].name);
		load(&c, (const char *const[]){ var, NULL });
		snprintf(tail, sizeof(tail), "; %s\n", rows[i].fallback);
		CHECK(warned_lines() == 1 && startswith(warned, var) && strlen(warned) > strlen(tail) &&
			      streq(warned + strlen(warned) - strlen(tail), tail) && same_config(&c, &d),
		      "%s='' is refused in one line ending '%s', the defaults kept (got: %.*s)", rows[i].name,
		      rows[i].fallback, (int)strcspn(warned, "\n"), warned);
		config_done(&c);
	}
	config_done(&d);
}

int main(void)
{
	test_program_name();
	test_defaults();
	test_events();
	test_outputs();
	test_globs();
	test_expand();
	test_malformed();
	test_escape();
	test_glob_escape();
	test_table();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
