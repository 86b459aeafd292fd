/* SPDX-License-Identifier: MIT */
/* Copy the man page from stdin to stdout with the variable list of its
 * ENVIRONMENT section (between the BEGIN and END config.def comments)
 * written from src/common/config.def: `make update-man` runs it, and
 * tests/man-environment.sh diffs its output against the page. */
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

int main(void)
{
	enum { BEFORE, INSIDE, AFTER } where = BEFORE;
	char *line = NULL;
	size_t size = 0;

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
