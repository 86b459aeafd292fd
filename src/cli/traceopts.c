/* SPDX-License-Identifier: MIT */
/* The tracing options shared by `run` and `env`, and the variables they set. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/library.h"
#include "common/config.h"
#include "common/escape.h"
#include "common/loadmode.h"
#include "common/vocabulary.h"
#include "common/util.h"


/* The options of config.def's rows, then --library. */
const char trace_opts_help[] =
#define CT_VAR(NAME, field, parse, default, fallback, cli, help, doc) help
#include "common/config.def"
	"      --library PATH      the profiler library to load\n"
	"      --beside-profiler   load as a notification profiler, beside the program's\n"
	"                          own profiler (an APM agent), leaving CORECLR_PROFILER alone\n";

/* Append ITEM to a comma list. */
static int list_append(char **list, const char *item)
{
	char *n = NULL;

	if (asprintf(&n, "%s%s%s", *list ? *list : "", *list ? "," : "", item) < 0)
		return -ENOMEM;
	free(*list);
	*list = n;
	return 0;
}

/* Value of an option taking one, as "--opt V" or "--opt=V". */
static const char *opt_value(const char *opt, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *eq = strchr(a, '=');

	if (a[1] == '-' && eq)
		return eq + 1;
	if (*i + 1 >= argc) {
		cli_error("option '%s' needs a value", opt);
		return NULL;
	}
	return argv[++*i];
}

/* Does argv[i] name option LONG_ (or SHORT_)? */
static bool is_opt(const char *a, const char *short_, const char *long_)
{
	size_t l = strlen(long_);

	return (short_ && strcmp(a, short_) == 0) || strcmp(a, long_) == 0 ||
	       (strncmp(a, long_, l) == 0 && a[l] == '=');
}

/* A list option: a repeat adds to the list (-e +gc -e +jit). */
static int list_option(char **list, const char *opt, int argc, char **argv, int *i)
{
	const char *v = opt_value(opt, argc, argv, i);

	return v && list_append(list, v) >= 0 ? 1 : -1;
}

/* Parse one tracing option at argv[*i]. */
int trace_opts_parse(struct trace_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;
	char **slot = NULL;

	if (strcmp(a, "--no-messages") == 0) {
		o->no_messages = true;
		return 1;
	}
	if (strcmp(a, "--beside-profiler") == 0) {
		o->beside = true;
		return 1;
	}
	if (strcmp(a, "-j") == 0 || strcmp(a, "--journal") == 0) {
		o->journal = true;
		return list_append(&o->outputs, "journal") < 0 ? -1 : 1;
	}
	if (is_opt(a, "-o", "--output")) {
		if (!(v = opt_value("--output", argc, argv, i)))
			return -1;
		return list_append(&o->outputs, v) < 0 ? -1 : 1;
	}
	if (is_opt(a, "-e", "--events"))
		return list_option(&o->events, "--events", argc, argv, i);
	if (is_opt(a, "-x", "--exceptions"))
		return list_option(&o->exceptions, "--exceptions", argc, argv, i);
	if (is_opt(a, "-p", "--processes"))
		return list_option(&o->processes, "--processes", argc, argv, i);
	if (is_opt(a, NULL, "--ident"))
		slot = &o->ident;
	else if (is_opt(a, NULL, "--journal-ratelimit"))
		slot = &o->ratelimit;
	else if (is_opt(a, NULL, "--budget"))
		slot = &o->budget;
	else if (is_opt(a, NULL, "--library")) {
		if (!(v = opt_value("--library", argc, argv, i)))
			return -1;
		free(o->library);
		o->library = strdup(v);
		return o->library ? 1 : -1;
	} else
		return 0;
	if (!(v = opt_value(a, argc, argv, i)))
		return -1;
	free(*slot);
	*slot = strdup(v);
	return *slot ? 1 : -1;
}

/* A bad value as an error line quotes it: escaped and cut, as the
 * profiler does (NULL-safe for cli_error's "%s"). */
static char *quote(const char *v)
{
	return escape_str(v, CT_QUOTE_MAX, ESC_BACKSLASH);
}

/* Validate values with the profiler's own parsers and find the library. */
int trace_opts_finish(struct trace_opts *o)
{
	_cleanup_free_ char *q = NULL; /* the one bad value quoted */
	struct ct_config c = { 0 };
	struct ct_globs g = { 0 };
	const char *why = NULL;
	unsigned cats;
	int r = 0;

	if (o->outputs && config_parse_outputs(o->outputs, &c, &why) < 0) {
		cli_error("--output '%s': %s", q = quote(o->outputs), why);
		r = -1;
	}
	config_done(&c);
	if (!r && o->events && config_parse_events(o->events, &cats, &why) < 0) {
		cli_error("--events '%s': %s", q = quote(o->events), why);
		r = -1;
	}
	if (!r && o->beside && config_parse_events(o->events ? o->events : "", &cats, &why) == 0 &&
	    (cats = ct_load_refused(LOAD_NOTIFICATION, cats))) {
		for (int i = 0; i < _CAT_MAX; i++)
			if (cats & (1u << i)) {
				cli_error("--events: %s cannot be traced beside another profiler (--beside-profiler): "
					  "the runtime does not allow it to a notification profiler", ct_categories[i].name);
				break;
			}
		r = -1;
	}
	if (!r && o->exceptions && config_parse_globs(o->exceptions, true, &g, &why) < 0) {
		cli_error("--exceptions '%s': %s", q = quote(o->exceptions), why);
		r = -1;
	}
	globs_done(&g);
	if (!r && o->processes && config_parse_globs(o->processes, false, &g, &why) < 0) {
		cli_error("--processes '%s': %s", q = quote(o->processes), why);
		r = -1;
	}
	globs_done(&g);
	if (!r && o->ratelimit && config_parse_ratelimit(o->ratelimit, &cats, &cats, &why) < 0) {
		cli_error("--journal-ratelimit '%s': %s", q = quote(o->ratelimit), why);
		r = -1;
	}
	if (!r && o->budget && config_parse_budget(o->budget, &cats, &cats, &why) < 0) {
		cli_error("--budget '%s': %s", q = quote(o->budget), why);
		r = -1;
	}
	if (!r && o->ident && args_ident(o->ident) < 0)
		r = -1;
	if (r)
		return r;
	if (o->exceptions) {
		/* short type names match as in view: TimeoutException, *.TimeoutException */
		char *x = args_exception_globs(o->exceptions);

		if (!x) {
			cli_error("out of memory");
			return -1;
		}
		free(o->exceptions);
		o->exceptions = x;
	}
	if (o->library) {
		char *p = realpath(o->library, NULL);

		if (!p) {
			cli_error("--library '%s': %s", o->library, strerror(errno));
			return -1;
		}
		free(o->library);
		o->library = p;
	} else if (!(o->library = cli_find_library())) {
		cli_error("cannot find libclrtrace.so (looked %s); set CLRTRACE_LIBRARY or use --library",
			  cli_library_places);
		return -1;
	}
	return 0;
}

/* Add NAME=VALUE to a NULL-terminated vector. */
static int env_add(char ***v, size_t *n, const char *name, const char *value)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(char *));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (asprintf(&nv[*n], "%s=%s", name, value) < 0)
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

/* The variables to set, as NAME=VALUE strings. */
char **trace_opts_environment(const struct trace_opts *o)
{
	char **v = NULL;
	size_t n = 0;
	int r = 0;

	if (o->beside) {
		/* after the notification profilers already there; each entry
		 * ends with ';' (some runtimes drop a last one without it) */
		const char *had = getenv("CORECLR_NOTIFICATION_PROFILERS");
		_cleanup_free_ char *list = NULL;

		if (asprintf(&list, "%s%s%s=%s;", had ? had : "", had && *had && had[strlen(had) - 1] != ';' ? ";" : "",
			     o->library, CT_CLSID_NOTIFICATION_STRING) < 0)
			r = -ENOMEM;
		else {
			r |= env_add(&v, &n, "CORECLR_ENABLE_NOTIFICATION_PROFILERS", "1");
			r |= env_add(&v, &n, "CORECLR_NOTIFICATION_PROFILERS", list);
		}
	} else {
		r |= env_add(&v, &n, "CORECLR_ENABLE_PROFILING", "1");
		r |= env_add(&v, &n, "CORECLR_PROFILER", CT_CLSID_STRING);
		r |= env_add(&v, &n, "CORECLR_PROFILER_PATH", o->library);
	}
	/* each variable an option set, in config.def's order */
#define CLI_STR(member) o->member
#define CLI_FLAG(member, value) (o->member ? (value) : NULL)
#define CLI_NONE NULL
#define CT_VAR(NAME, field, parse, default, fallback, cli, ...)         \
	{                                                                \
		const char *value = cli;                                 \
		if (value)                                               \
			r |= env_add(&v, &n, "CLRTRACE_" #NAME, value);  \
	}
#include "common/config.def"
#undef CLI_STR
#undef CLI_FLAG
#undef CLI_NONE
	if (r) {
		for (size_t i = 0; v && v[i]; i++)
			free(v[i]);
		free(v);
		return NULL;
	}
	return v;
}

/* Free what parsing allocated. */
void trace_opts_done(struct trace_opts *o)
{
	free(o->outputs);
	free(o->events);
	free(o->exceptions);
	free(o->processes);
	free(o->ident);
	free(o->ratelimit);
	free(o->budget);
	free(o->library);
	*o = (struct trace_opts){ 0 };
}
