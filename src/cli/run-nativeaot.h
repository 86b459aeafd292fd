/* SPDX-License-Identifier: MIT */
/* Is the program `run` started a NativeAOT executable, which no profiler can trace? */
#pragma once

#include <stdbool.h>

/* Is PROG (a path, or a name looked up in PATH as execvp does) a NativeAOT executable? */
bool run_is_nativeaot(const char *prog);
