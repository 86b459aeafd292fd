/* SPDX-License-Identifier: MIT */
/* clrtrace env: the variables that trace a .NET program, for shells or units. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "common/util.h"

/* Quote a value for a POSIX shell: 'it'\''s'. */
static void print_shell_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}

/* Write S escaped for inside a quoted systemd Environment= assignment. */
static void print_unit_escaped(const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if (*s == '%')
			putchar('%'); /* specifiers: %% is a literal % */
		putchar(*s);
	}
}

int cmd_env(int argc, char **argv)
{
	_cleanup_(trace_opts_done) struct trace_opts o = { 0 };
	bool systemd = false;
	char **env;

	for (int i = 1; i < argc; i++) {
		int r;

		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("Usage: clrtrace env [OPTIONS]\n\n"
			       "Print the variables that trace .NET programs started from this shell:\n"
			       "  eval \"$(clrtrace env -e +gc)\"\n"
			       "The SDK's own programs (dotnet build and the other dotnet commands, csc,\n"
			       "VBCSCompiler, MSBuild nodes) are left out unless -p says otherwise (-p '*').\n\nOptions:\n%s"
			       "      --systemd           print Environment= lines for a unit drop-in\n",
			       trace_opts_help);
			return 0;
		}
		if (strcmp(argv[i], "--systemd") == 0) {
			systemd = true;
			continue;
		}
		r = trace_opts_parse(&o, argc, argv, &i);
		if (r < 0)
			return EXIT_USAGE;
		if (r == 0) {
			cli_error("env: unknown option '%s' (try 'clrtrace env --help')", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (!o.processes && !(o.processes = strdup(CLI_SDK_EXCLUDED))) { /* as run does */
		cli_error("out of memory");
		return 1;
	}
	if (trace_opts_finish(&o) < 0)
		return EXIT_USAGE;
	env = trace_opts_environment(&o);
	if (!env) {
		cli_error("out of memory");
		return 1;
	}
	if (systemd)
		puts("[Service]");
	for (size_t i = 0; env[i]; i++) {
		char *eq = strchr(env[i], '=');

		*eq = 0;
		if (systemd) {
			/* the whole NAME=VALUE in one pair of quotes */
			printf("Environment=\"");
			print_unit_escaped(env[i]);
			putchar('=');
			print_unit_escaped(eq + 1);
			putchar('"');
		} else {
			printf("export %s=", env[i]);
			print_shell_quoted(eq + 1);
		}
		putchar('\n');
		free(env[i]);
	}
	free(env);
	return 0;
}
