/* SPDX-License-Identifier: MIT */
/*
 * Prints the vocabulary as man/clrtrace-records.5 writes it: the tbl rows of
 * the event table and of the category table, from ct_events[] and
 * ct_categories[] at run time.  tests/docs.sh compares the man page with
 * this output row by row, so the page cannot drift from the table.
 *
 *   test-docs events       the rows of the event table
 *   test-docs categories   the rows of the category table
 */
#include <stdio.h>
#include <string.h>

#include "common/vocabulary.h"

/* syslog(3) names of the journal priorities, 0..7. */
static const char *const priority_names[8] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

/* Write S as roff text: a backslash is \e, a leading . or ' is guarded. */
static void put_roff(const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", stdout);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", stdout);
		else
			putchar(*s);
	}
}

/* The event table: per event, a tbl format switch and two rows (name,
 * category, phases, priority; then MESSAGE_ID and description). */
static int print_events(void)
{
	for (int i = 0; i < _EV_MAX; i++) {
		const struct ct_event_info *e = &ct_events[i];

		if (e->priority < 0 || e->priority > 7 || e->category < 0 || e->category >= _CAT_MAX) {
			fprintf(stderr, "test-docs: %s: priority or category out of range\n", e->name);
			return 1;
		}
		fputs(".T&\nlB l l l\nl lw(11n) sw(10n) sw(8n).\n", stdout);
		put_roff(e->name);
		printf(";%s;%s;%d %s\n", ct_categories[e->category].name,
		       e->kind == KIND_SPAN ? "begin, end" : "instant",
		       e->priority, priority_names[e->priority]);
		printf("%s;T{\n", e->message_id);
		put_roff(e->description);
		fputs("\nT}\n", stdout);
	}
	return 0;
}

/* The category table: name, whether it is on by default, its events. */
static int print_categories(void)
{
	for (int c = 0; c < _CAT_MAX; c++) {
		const struct ct_category_info *k = &ct_categories[c];
		const char *sep = "";

		printf("%s;%s;T{\n", k->name,
		       !k->optional ? "always" : k->default_on ? "default" : "off");
		for (int i = 0; i < _EV_MAX; i++) {
			if (ct_events[i].category != (enum ct_category)c)
				continue;
			printf("%s", sep);
			put_roff(ct_events[i].name);
			sep = ", ";
		}
		fputs("\nT}\n", stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "events") == 0)
		return print_events();
	if (argc == 2 && strcmp(argv[1], "categories") == 0)
		return print_categories();
	fprintf(stderr, "usage: test-docs events|categories\n");
	return 2;
}
