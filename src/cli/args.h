/* SPDX-License-Identifier: MIT */
/* Strict option values for every command: one line naming the option, the
 * value and what is accepted, then exit status 2 (EXIT_USAGE). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The SDK's own programs (dotnet build and the other dotnet CLI commands,
 * the compiler and its server, MSBuild nodes): not traced unless -p says
 * otherwise; `dotnet app.dll` and `dotnet exec` are named after the app. */
#define CLI_SDK_EXCLUDED "!dotnet,!MSBuild,!VBCSCompiler,!csc"

/* Print "CMD: OPT 'VALUE': accepted: ACCEPTED" (the value escaped and cut;
 * CMD NULL for the tracing options of run and env, which have no prefix). */
void args_bad(const char *cmd, const char *opt, const char *value, const char *accepted);
/* After getopt_long returned '?' or ':' (opterr 0, optstring starting with
 * ':'): name the unknown option or the one missing its value. */
void args_getopt_error(const char *cmd, int opt, char **argv);
/* At least one FILE operand left at argv[first]?  Otherwise say so. */
int args_files(const char *cmd, int argc, char **argv, int first);
/* A whole number in [0, MAX] (decimal, nothing else). */
int args_uint(const char *cmd, const char *opt, const char *value, uint64_t max, uint64_t *ret);
/* Seconds: a finite number, 0 or more. */
int args_seconds(const char *cmd, const char *opt, const char *value, double *ret);
/* A comma list of one or more whole numbers (thread ids). */
int args_numbers(const char *cmd, const char *opt, const char *value);
/* A non-empty glob. */
int args_glob(const char *cmd, const char *opt, const char *value);
/* A journal identifier the profiler takes (its own check, config_load). */
int args_ident(const char *value);
/* Every item of the comma list VALUE a category name or a glob matching
 * at least one known event name. */
int args_events(const char *cmd, const char *opt, const char *value);
/* Every item of the comma list VALUE one of the NULL-terminated WORDS. */
int args_words(const char *cmd, const char *opt, const char *value, const char *const *words);
/* Does the type glob PATTERN match TYPE, a glob without a '.' also matching
 * TYPE's short name (TimeoutException matches System.TimeoutException)? */
bool args_type_match(const char *pattern, const char *type);
/* The comma list of exception globs (for CLRTRACE_EXCEPTIONS) with every
 * item that names no namespace also given as *.ITEM, so short names match
 * as in view; malloc'd, NULL on ENOMEM. */
char *args_exception_globs(const char *value);
