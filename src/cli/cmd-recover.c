/* SPDX-License-Identifier: MIT */
/* clrtrace recover: merge FILE.<pid>.pending (left by a process that died without
 * a flush) into FILE. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/pending.h"

/* One line per mirror: whose records were merged, or why it was not (an
 * error makes the exit status 1). */
static void on_skip(void *ud, const char *pending, const char *why, int error)
{
	int *status = ud;

	cli_error("recover: %s: %s", pending, why);
	if (error > 0 && *status == 0)
		*status = 1;
}

int cmd_recover(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		cli_error("recover: no trace file given (try 'clrtrace recover --help')");
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fprintf(stdout,
			"Usage: clrtrace recover FILE...\n\n"
			"Append to each trace FILE the records a process left in FILE.<pid>.pending\n"
			"(or FILE.<pid>.<n>.pending) when it died without a chance to flush\n"
			"(Environment.FailFast, kill -9, SIGTERM without a handler), then remove that file,\n"
			"saying whose records they were (pid, start time, boot).  Only your own files\n"
			"that no one else may write are merged; another user's is named and left as it is.\n"
			"Files of processes still running are left alone; records already in FILE are not\n"
			"written twice.  `clrtrace run` does this by itself, for its own processes.\n");
		return 0;
	}
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1]) {
			cli_error("recover: unknown option '%s' (try 'clrtrace recover --help')", argv[i]);
			return EXIT_USAGE;
		}
	for (int i = 1; i < argc; i++) {
		int n = pending_recover(argv[i], NULL, on_skip, &status);

		if (n == -ENOENT) {
			cli_error("recover: %s: no such trace file and no FILE.<pid>.pending beside it", argv[i]);
			status = EXIT_USAGE;
		} else if (n < 0) {
			if (n != -EBADMSG) /* each bad file has had its own line */
				cli_error("recover: %s: %s", argv[i], strerror(-n));
			if (status == 0)
				status = 1;
		} else if (n > 0)
			fprintf(stderr, "clrtrace: recovered %d records into %s\n", n, argv[i]);
	}
	return status;
}
