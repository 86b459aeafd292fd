/* SPDX-License-Identifier: MIT */
/* clrtrace: dispatch to one subcommand from a table. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/config.h"

static const struct cli_command commands[] = {
	{ "run", "[OPTIONS] -- PROGRAM [ARGS...]", "run a .NET program under the tracer", cmd_run },
	{ "env", "[OPTIONS]", "print the environment that traces a .NET program", cmd_env },
	{ "view", "[OPTIONS] TRACE...", "show a trace as a per-thread tree", cmd_view },
	{ "stats", "[OPTIONS] TRACE...", "summarise a trace", cmd_stats },
	{ "startup", "[--json] TRACE [TRACE_B]", "audit a program's start-up, or compare two", cmd_startup },
	{ "export", "--format chrome [OPTIONS] TRACE...", "convert a trace for other tools", cmd_export },
	{ "check", "[OPTIONS] TRACE...", "validate a trace: schema, seq gaps, nesting", cmd_check },
	{ "recover", "FILE...", "merge the records a dead process left in FILE.pending", cmd_recover },
	{ "ps", "[-l]", "list the running .NET processes clrtrace can attach to", cmd_ps },
	{ "attach", "[OPTIONS] PID", "load the tracer into a running .NET process", cmd_attach },
	{ "detach", "PID", "stop tracing a process clrtrace attach loaded into", cmd_detach },
};

/* "clrtrace: " + message + newline on stderr. */
void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("clrtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Top-level help. */
static void usage(FILE *f)
{
	fprintf(f, "Usage: clrtrace COMMAND [OPTIONS]\n\n"
		   "An exception and runtime-event tracer for .NET programs.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-7s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'clrtrace COMMAND --help' for a command's options; see clrtrace(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strncmp(argv[1], "--list=", 7) == 0)
		return cli_list_words(argv[1] + 7);
	if (strcmp(argv[1], "--version") == 0) {
		printf("clrtrace %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].exec(argc - 1, argv + 1);
	cli_error("unknown command '%s' (try 'clrtrace --help')", argv[1]);
	return EXIT_USAGE;
}
