/* SPDX-License-Identifier: MIT */
/* The process-wide state (state.h), set up in Initialize. */
#include "profiler/core/state.h"

struct ct_global ct;
