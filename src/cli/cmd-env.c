/* SPDX-License-Identifier: MIT */
/* clrtrace env: the variables that trace a .NET program, for shells or units. */
#include <errno.h>
#include <stdbool.h>
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
		if ((unsigned char)*s < 0x20 || *s == 0x7f) { /* a newline would end the line: C escapes */
			printf("\\x%02x", (unsigned)(unsigned char)*s);
			continue;
		}
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if (*s == '%')
			putchar('%'); /* specifiers: %% is a literal % */
		putchar(*s);
	}
}

/* Is S safe bare in a POSIX shell word (and a dotenv line)? */
static bool shell_bare(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:,@%+=-", *s))
			return false;
	return true;
}

/* The output formats: what reads the lines (--format). */
enum env_format { FMT_SHELL, FMT_SYSTEMD, FMT_DOCKER, FMT_DOTENV };
static const char *const env_formats[] = { "shell", "systemd", "docker", "dotenv", NULL };

/* Print NAME=VALUE in format FMT (docker: the -e arguments, on one line). */
static void print_var(enum env_format fmt, const char *name, const char *value, bool first)
{
	switch (fmt) {
	case FMT_SYSTEMD: /* the whole NAME=VALUE in one pair of quotes */
		printf("Environment=\"");
		print_unit_escaped(name);
		putchar('=');
		print_unit_escaped(value);
		puts("\"");
		break;
	case FMT_DOCKER:
		printf("%s-e %s=", first ? "" : " ", name);
		if (shell_bare(value))
			fputs(value, stdout);
		else
			print_shell_quoted(value);
		break;
	case FMT_DOTENV: /* bare when it can be, else single quotes: a POSIX shell's `set -a; . FILE` reads it */
		printf("%s=", name);
		if (shell_bare(value))
			fputs(value, stdout);
		else
			print_shell_quoted(value);
		putchar('\n');
		break;
	case FMT_SHELL:
		printf("export %s=", name);
		print_shell_quoted(value);
		putchar('\n');
		break;
	}
}

/* The format named VALUE, or -EINVAL after saying what is accepted. */
static int parse_format(const char *value)
{
	for (int k = 0; env_formats[k]; k++)
		if (strcmp(value, env_formats[k]) == 0)
			return k;
	args_bad("env", "--format", value, "shell, systemd, docker, dotenv");
	return -EINVAL;
}

int cmd_env(int argc, char **argv)
{
	_cleanup_(trace_opts_done) struct trace_opts o = { 0 };
	enum env_format fmt = FMT_SHELL;
	char **env;

	for (int i = 1; i < argc; i++) {
		int r;

		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("Usage: clrtrace env [OPTIONS]\n\n"
			       "Print the variables that trace .NET programs started from this shell:\n"
			       "  eval \"$(clrtrace env -e +gc)\"\n"
			       "The SDK's own programs (dotnet build and the other dotnet commands, csc,\n"
			       "VBCSCompiler, MSBuild nodes) are left out unless -p says otherwise (-p '*').\n\nOptions:\n%s"
			       "      --format FORMAT     shell: export lines for eval (the default);\n"
			       "                          systemd: Environment= lines for a unit drop-in;\n"
			       "                          docker: -e NAME=VALUE arguments for docker run;\n"
			       "                          dotenv: NAME=VALUE lines for an env file\n"
			       "      --systemd           the same as --format systemd\n",
			       trace_opts_help);
			return 0;
		}
		if (strcmp(argv[i], "--systemd") == 0) {
			fmt = FMT_SYSTEMD;
			continue;
		}
		if (strcmp(argv[i], "--format") == 0 || startswith(argv[i], "--format=")) {
			const char *v = argv[i][8] == '=' ? argv[i] + 9 : argv[i + 1];

			if (!v) {
				cli_error("env: option '--format' needs a value (try 'clrtrace env --help')");
				return EXIT_USAGE;
			}
			if (argv[i][8] != '=')
				i++;
			r = parse_format(v);
			if (r < 0)
				return EXIT_USAGE;
			fmt = (enum env_format)r;
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
	if (fmt == FMT_SYSTEMD)
		puts("[Service]");
	for (size_t i = 0; env[i]; i++) {
		char *eq = strchr(env[i], '=');

		if (eq) { /* always, as trace_opts_environment() makes them */
			*eq = 0;
			print_var(fmt, env[i], eq + 1, i == 0);
		}
		free(env[i]);
	}
	if (fmt == FMT_DOCKER)
		putchar('\n');
	free(env);
	return 0;
}
