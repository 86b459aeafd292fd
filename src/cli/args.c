/* SPDX-License-Identifier: MIT */
/* Strict option values shared by every command (see args.h). */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/escape.h"
#include "common/config.h"
#include "common/escape.h"
#include "common/util.h"
#include "common/vocabulary.h"

/* Print "CMD: OPT 'VALUE': accepted: ACCEPTED". */
void args_bad(const char *cmd, const char *opt, const char *value, const char *accepted)
{
	_cleanup_free_ char *q = escape_str(value, CT_QUOTE_MAX, ESC_BACKSLASH); /* as run and env do */

	cli_error("%s%s%s '%s': accepted: %s", cmd ? cmd : "", cmd ? ": " : "", opt, q ? q : "?", accepted);
}

/* Name the unknown option, or the one missing its value. */
void args_getopt_error(const char *cmd, int opt, char **argv)
{
	_cleanup_free_ char *q = esc_strdup(argv[optind - 1]);
	char s[3] = { '-', (char)optopt, 0 };
	const char *what = q ? q : "?";

	/* a short option (perhaps in a cluster, -fz) is named alone; an
	 * unknown long one is the whole argument */
	if (optopt && (opt == '?' || strncmp(argv[optind - 1], "--", 2) != 0))
		what = s;
	if (opt == ':')
		cli_error("%s: option '%s' needs a value (try 'clrtrace %s --help')", cmd, what, cmd);
	else
		cli_error("%s: unknown option '%s' (try 'clrtrace %s --help')", cmd, what, cmd);
}

/* At least one FILE operand left? */
int args_files(const char *cmd, int argc, char **argv, int first)
{
	(void)argv;
	if (first == argc) {
		cli_error("%s: no trace file given (a FILE, a rotated set, or - for standard input; try 'clrtrace %s --help')",
			  cmd, cmd);
		return -EINVAL;
	}
	return 0;
}

/* A whole number in [0, MAX]. */
int args_uint(const char *cmd, const char *opt, const char *value, uint64_t max, uint64_t *ret)
{
	unsigned long long v;
	char *end = NULL, accepted[64];

	errno = 0;
	v = value[0] >= '0' && value[0] <= '9' ? strtoull(value, &end, 10) : 0;
	if (!end || *end || errno || v > max) {
		snprintf(accepted, sizeof(accepted), "a whole number from 0 to %llu", (unsigned long long)max);
		args_bad(cmd, opt, value, accepted);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

/* Seconds: a finite number, 0 or more. */
int args_seconds(const char *cmd, const char *opt, const char *value, double *ret)
{
	char *end = NULL;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (end == value || *end || errno || !isfinite(v) || v < 0) {
		args_bad(cmd, opt, value, "seconds after the first record (a number, 0 or more)");
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static bool number_ok(const char *item, const void *ud)
{
	(void)ud;
	return item[strspn(item, "0123456789")] == 0 && strlen(item) <= 18;
}

/* Every item of the (comma) list VALUE for which OK says yes? */
static int check_items(const char *cmd, const char *opt, const char *value, bool (*ok)(const char *, const void *),
		       const void *ud, const char *accepted);

/* A comma list of whole numbers. */
int args_numbers(const char *cmd, const char *opt, const char *value)
{
	return check_items(cmd, opt, value, number_ok, NULL, "a comma list of thread ids (whole numbers)");
}

/* A non-empty glob. */
int args_glob(const char *cmd, const char *opt, const char *value)
{
	if (*value)
		return 0;
	args_bad(cmd, opt, value, "a type glob (System.IO.*, TimeoutException)");
	return -EINVAL;
}

static const char *ident_value;

/* The environment the profiler would see: CLRTRACE_IDENT only. */
static const char *ident_getenv(const char *name)
{
	return strcmp(name, "CLRTRACE_IDENT") == 0 ? ident_value : NULL;
}

static void ident_warn(void *ud, const char *line)
{
	(void)line;
	*(bool *)ud = true;
}

/* A journal identifier the profiler takes. */
int args_ident(const char *value)
{
	struct ct_config c;
	bool bad = false;

	ident_value = value;
	if (config_load(&c, ident_getenv, ident_warn, &bad) < 0)
		return -ENOMEM;
	config_done(&c);
	if (bad) {
		args_bad(NULL, "--ident", value, "1 to 64 printable characters, no spaces or '='");
		return -EINVAL;
	}
	return 0;
}

/* Does ITEM name a category or match a known event? */
static bool event_item_known(const char *item)
{
	for (int c = 0; c < _CAT_MAX; c++)
		if (strcmp(item, ct_categories[c].name) == 0)
			return true;
	for (int e = 0; e < _EV_MAX; e++)
		if (fnmatch(item, ct_events[e].name, 0) == 0)
			return true;
	return false;
}

/* Every item of VALUE for which OK says yes?  Else the one-line error. */
static int check_items(const char *cmd, const char *opt, const char *value, bool (*ok)(const char *, const void *),
		       const void *ud, const char *accepted)
{
	_cleanup_free_ char *dup = strdup(value);
	char *save = NULL;
	bool any = false;

	if (!dup)
		return -ENOMEM;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		any = true;
		if (!ok(t, ud)) {
			args_bad(cmd, opt, t, accepted);
			return -EINVAL;
		}
	}
	if (!any) {
		args_bad(cmd, opt, value, accepted);
		return -EINVAL;
	}
	return 0;
}

static bool event_ok(const char *item, const void *ud)
{
	(void)ud;
	return event_item_known(item);
}

/* Every item a category or a glob matching a known event. */
int args_events(const char *cmd, const char *opt, const char *value)
{
	return check_items(cmd, opt, value, event_ok, NULL,
			   "categories (exceptions, frames, loader, classes, threads, suspend, transitions, gc, jit, "
			   "runtime, trace) or globs of event names (exception.*); see clrtrace(1)");
}

static bool word_ok(const char *item, const void *ud)
{
	for (const char *const *w = ud; *w; w++)
		if (strcmp(item, *w) == 0)
			return true;
	return false;
}

/* Every item one of WORDS. */
int args_words(const char *cmd, const char *opt, const char *value, const char *const *words)
{
	char accepted[256] = "a comma list of ";
	size_t used = strlen(accepted);

	for (const char *const *w = words; *w; w++) {
		int n = snprintf(accepted + used, sizeof(accepted) - used, "%s%s", w == words ? "" : ", ", *w);

		if (n < 0 || (size_t)n >= sizeof(accepted) - used)
			break;
		used += (size_t)n;
	}
	return check_items(cmd, opt, value, word_ok, words, accepted);
}

/* Does PATTERN match TYPE or, without a '.', TYPE's short name? */
bool args_type_match(const char *pattern, const char *type)
{
	const char *dot;

	if (fnmatch(pattern, type, 0) == 0)
		return true;
	if (strchr(pattern, '.') || !(dot = strrchr(type, '.')))
		return false;
	return fnmatch(pattern, dot + 1, 0) == 0;
}

/* The exception globs with every namespace-less item also as *.ITEM. */
char *args_exception_globs(const char *value)
{
	_cleanup_free_ char *dup = strdup(value);
	char *out = NULL, *save = NULL;
	size_t size = 0;
	FILE *f;

	if (!dup || !(f = open_memstream(&out, &size)))
		return NULL;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const char *glob = t[0] == '!' ? t + 1 : t;
		const char *colon = strrchr(glob, ':');

		/* the glob part: up to a :N limit (a [:class:] has a ']' after it) */
		if (colon && strchr(colon, ']'))
			colon = NULL;
		fprintf(f, "%s%s", ftell(f) ? "," : "", t);
		if (!memchr(glob, '.', colon ? (size_t)(colon - glob) : strlen(glob)) && glob[0] != '*')
			fprintf(f, ",%s*.%s", t[0] == '!' ? "!" : "", glob);
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
