/* SPDX-License-Identifier: MIT */
/* Unit tests of the CLI's escaping of record text (src/cli/escape.c) and of
 * its strict option values (src/cli/args.c). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/escape.h"
#include "common/vocabulary.h"
#include "unit.h"

static char last_error[512];

/* args.c's one error line, kept for the checks. */
void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

/* The escaped form of the N bytes at S. */
static char *esc_n(const char *s, size_t n)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	esc_fwrite(s, n, f);
	fclose(f);
	return buf;
}

static void test_escape(void)
{
	static const struct {
		const char *in, *out, *what;
	} cases[] = {
		{ "plain text", "plain text", "printable ASCII unchanged" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "valid UTF-8 unchanged" },
		{ "a\nb\tc\rd\ve\ff", "a\\nb\\tc\\rd\\ve\\ff", "C escapes for the common controls" },
		{ "\x1b]0;t\x07\x1b[2J", "\\e]0;t\\x07\\e[2J", "ESC as \\e, BEL as \\x07" },
		{ "C:\\dir", "C:\\\\dir", "backslash doubled" },
		{ "\x7f\x01", "\\x7f\\x01", "DEL and other C0 as \\xHH" },
		{ "\xc2\x9b" "31m", "\\xc2\\x9b31m", "a C1 control (CSI) as its bytes" },
		{ "\xe2\x80\xae" "abc", "\\xe2\\x80\\xaeabc", "a bidi override as its bytes" },
		{ "\xe2\x80\xa8", "\\xe2\\x80\\xa8", "U+2028 as its bytes" },
		{ "\xff\xfe", "\\xff\\xfe", "invalid bytes" },
		{ "\xc0\xaf", "\\xc0\\xaf", "an overlong sequence" },
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80", "a UTF-8 encoded surrogate" },
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "beyond U+10FFFF" },
		{ "\xe2\x82", "\\xe2\\x82", "a sequence cut short at the end" },
		{ "\xe2\x82x", "\\xe2\\x82x", "a sequence cut short by ASCII" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = esc_n(cases[i].in, strlen(cases[i].in));

		CHECK(got && strcmp(got, cases[i].out) == 0, "escape: %s (got '%s')", cases[i].what, got ? got : "(null)");
		free(got);
	}
	char *nul = esc_n("a\0b", 3);
	CHECK(nul && strcmp(nul, "a\\x00b") == 0, "escape: a NUL byte as \\x00");
	free(nul);
	char *d = esc_strdup("x\ny");
	CHECK(d && strcmp(d, "x\\ny") == 0, "esc_strdup");
	free(d);
	CHECK(esc_strdup(NULL) == NULL, "esc_strdup(NULL) is NULL");

	json_t *j = json_pack("{s:s, s:[s, i], s:{s:s}}", "a", "x\x1b", "b", "y\n", 3, "c", "k\x1b", "z\t");
	json_t *e = esc_json(j);
	char *dump = e ? json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	CHECK(dump && strcmp(dump, "{\"a\":\"x\\\\e\",\"b\":[\"y\\\\n\",3],\"c\":{\"k\\u001B\":\"z\\\\t\"}}") == 0,
	      "esc_json: every string value escaped, keys and numbers kept (got %s)", dump ? dump : "(null)");
	free(dump);
	json_decref(e);
	json_decref(j);
}

static void test_args(void)
{
	uint64_t v = 99;

	CHECK(args_uint("stats", "--top", "0", 10, &v) == 0 && v == 0, "args_uint: 0");
	CHECK(args_uint("stats", "--top", "10", 10, &v) == 0 && v == 10, "args_uint: the maximum");
	CHECK(args_uint("stats", "--top", "11", 10, &v) < 0 && strstr(last_error, "--top '11': accepted: a whole number from 0 to 10"),
	      "args_uint: above the maximum (%s)", last_error);
	CHECK(args_uint("stats", "--top", "-1", 10, &v) < 0, "args_uint: negative");
	CHECK(args_uint("stats", "--top", " 1", 10, &v) < 0, "args_uint: a leading space");
	CHECK(args_uint("stats", "--top", "1x", 10, &v) < 0, "args_uint: trailing garbage");
	CHECK(args_uint("stats", "--top", "", 10, &v) < 0, "args_uint: empty");
	CHECK(args_uint("check", "-m", "99999999999999999999", UINT64_MAX - 1, &v) < 0, "args_uint: overflow");

	CHECK(args_events("view", "-e", "exception.*,gc,threads,runtime.init") == 0, "args_events: globs, categories, names");
	CHECK(args_events("view", "-e", "exception.*,bogus") < 0 && strstr(last_error, "'bogus'"), "args_events: one bad item named");
	CHECK(args_events("view", "-e", ",") < 0, "args_events: no item");
	CHECK(args_words("view", "-o", "caught,unknown", ct_outcome_table) == 0, "args_words: known outcomes");
	CHECK(args_words("view", "-o", "caught,lost", ct_outcome_table) < 0 && strstr(last_error, "'lost'"), "args_words: an unknown one");

	double d = -1;
	CHECK(args_seconds("view", "-S", "1.5", &d) == 0 && d == 1.5, "args_seconds: 1.5");
	CHECK(args_seconds("view", "-S", "0", &d) == 0 && d == 0, "args_seconds: 0");
	CHECK(args_seconds("view", "-S", "-1", &d) < 0, "args_seconds: negative");
	CHECK(args_seconds("view", "-S", "inf", &d) < 0, "args_seconds: infinite");
	CHECK(args_seconds("view", "-S", "nan", &d) < 0, "args_seconds: not a number");
	CHECK(args_seconds("view", "-S", "", &d) < 0, "args_seconds: empty");
	CHECK(args_numbers("view", "-t", "12,345") == 0, "args_numbers: a list");
	CHECK(args_numbers("view", "-t", "12,-3") < 0, "args_numbers: a negative item");
	CHECK(args_ident("my-app.1") == 0, "args_ident: a fine identifier");
	CHECK(args_ident("a b") < 0 && strstr(last_error, "--ident 'a b': accepted:") == last_error,
	      "args_ident: a space, no command prefix (%s)", last_error);
	CHECK(args_ident("") < 0, "args_ident: empty");

	CHECK(args_type_match("TimeoutException", "System.TimeoutException"), "type: a short name");
	CHECK(args_type_match("*Timeout*", "System.TimeoutException"), "type: a glob without a dot");
	CHECK(args_type_match("System.*", "System.TimeoutException"), "type: a full glob");
	CHECK(!args_type_match("Timeout", "System.TimeoutException"), "type: a part of the name does not match");
	CHECK(!args_type_match("IO.IOException", "System.IO.IOException"), "type: a glob with a dot is matched whole");
	CHECK(args_type_match("Foo", "Foo"), "type: a type outside any namespace");

	static const struct {
		const char *in, *out;
	} globs[] = {
		{ "TimeoutException", "TimeoutException,*.TimeoutException" },
		{ "!Beta*", "!Beta*,!*.Beta*" },
		{ "Bar:5", "Bar:5,*.Bar:5" },
		{ "System.IO.*,*Exception", "System.IO.*,*Exception" },
		{ "[[:upper:]]x", "[[:upper:]]x,*.[[:upper:]]x" },
	};
	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++) {
		char *got = args_exception_globs(globs[i].in);

		CHECK(got && strcmp(got, globs[i].out) == 0, "exception globs: %s -> %s (got %s)", globs[i].in, globs[i].out,
		      got ? got : "(null)");
		free(got);
	}
}

int main(void)
{
	test_escape();
	test_args();
	return failures ? 1 : 0;
}
