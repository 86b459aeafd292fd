/* SPDX-License-Identifier: MIT */
/* clrtrace --list=WHAT: the words of a vocabulary, one a line, for shell
 * completion (contrib/bash-completion/clrtrace), from the tables themselves. */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "common/vocabulary.h"

/* Print the words of WHAT; exit status. */
int cli_list_words(const char *what)
{
	if (strcmp(what, "events") == 0) {
		for (int e = 0; e < _EV_MAX; e++)
			puts(ct_events[e].name);
	} else if (strcmp(what, "categories") == 0) {
		for (int c = 0; c < _CAT_MAX; c++)
			puts(ct_categories[c].name);
	} else if (strcmp(what, "outcomes") == 0) {
		for (const char *const *o = ct_outcome_table; *o; o++)
			puts(*o);
	} else {
		cli_error("--list '%s': accepted: events, categories, outcomes", what);
		return EXIT_USAGE;
	}
	return 0;
}
