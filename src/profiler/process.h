/* SPDX-License-Identifier: MIT */
/* Who the traced process is (process.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* /proc/self/cmdline as a malloc'd NUL-separated block (*LEN bytes), or NULL. */
char *ct_read_cmdline(size_t *len);
/* The program's name from that block (config_program_name); "dotnet" when
 * there is none; NULL only when out of memory. */
char *ct_program_name(const char *cmd, size_t len);
/* Under AT_SECURE: does CLRTRACE_PROCESSES leave PROGRAM out anyway? */
bool ct_secure_excluded(const char *program);
/* What `clrtrace run` calls PROGRAM, whose command line is CMD: its name, and for the SDK's
 * `dotnet` its command too ("dotnet build"); malloc'd, or NULL. */
char *ct_program_label(const char *program, const char *cmd, size_t len);
