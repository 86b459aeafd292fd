/* SPDX-License-Identifier: MIT */
/* Prototypes of every on_<Callback>() handler, from callbacks.def. */
#pragma once

#include <stdlib.h>

#include "profiler/core/tracer.h"
#include "common/util.h"

#define HANDLER_PARAMS(...) (struct ct_thread *t __VA_OPT__(,) __VA_ARGS__)
#define CB(slot, name, params, args) HRESULT on_##name HANDLER_PARAMS params;
#include "profiler/abi/callbacks.def"
#undef CB
#undef HANDLER_PARAMS
