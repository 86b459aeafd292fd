/* SPDX-License-Identifier: MIT */
/* Copy the man page from stdin to stdout with the variable list of its
 * ENVIRONMENT section (between the BEGIN and END config.def comments)
 * written from src/common/config.def: `make update-man` runs it, and
 * tests/man-environment.sh diffs its output against the page.  With
 * --defaults: "NAME DEFAULT" for each variable that has one, for the test
 * to check README.md's table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"

#define BEGIN_MARK ".\\\" BEGIN config.def"
#define END_MARK ".\\\" END config.def"

/* The list, one .TP paragraph per variable, in the table's order. */
static void print_list(void)
{
#define CT_VAR(NAME, field, parse, default, fallback, cli, help, doc) \
	fputs(".TP\n.B CLRTRACE_" #NAME "\n" doc, stdout);
#define CT_ENV(tag, doc) fputs(".TP\n" tag "\n" doc, stdout);
#include "common/config.def"
}

/* "CLRTRACE_NAME DEFAULT" lines. */
static void print_defaults(void)
{
	static const char *const rows[][2] = {
#define CT_VAR(NAME, field, parse, default, ...) { "CLRTRACE_" #NAME, default },
#include "common/config.def"
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i][1])
			printf("%s %s\n", rows[i][0], rows[i][1]);
}

int main(int argc, char **argv)
{
	enum { BEFORE, INSIDE, AFTER } where = BEFORE;
	char *line = NULL;
	size_t size = 0;

	if (argc > 1 && strcmp(argv[1], "--defaults") == 0) {
		print_defaults();
		return fflush(stdout) == 0 ? 0 : 1;
	}

	while (getline(&line, &size, stdin) > 0) {
		bool begin = strncmp(line, BEGIN_MARK, strlen(BEGIN_MARK)) == 0;
		bool end = strncmp(line, END_MARK, strlen(END_MARK)) == 0;

		if (where == BEFORE && begin) {
			fputs(line, stdout);
			print_list();
			where = INSIDE;
		} else if (where == INSIDE && end) {
			fputs(line, stdout);
			where = AFTER;
		} else if (where != INSIDE)
			fputs(line, stdout);
	}
	free(line);
	if (where != AFTER) {
		fprintf(stderr, "environment: no '%s' ... '%s' lines in the man page\n", BEGIN_MARK, END_MARK);
		return 1;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
