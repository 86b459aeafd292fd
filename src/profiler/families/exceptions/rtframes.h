/* SPDX-License-Identifier: MIT */
/* The runtime's own frames under the program's code (rtframes.c). */
#pragma once

#include <stdbool.h>

#include "profiler/abi/corprof.h"

/* Is F one of the methods of System.Private.CoreLib that the runtime puts
 * under the program's code to start it (Main's caller, a thread's start,
 * the thread pool's dispatch)?  Cached per FunctionID; false when unknown. */
bool ct_runtime_frame(FunctionID f);
