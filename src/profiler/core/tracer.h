/* SPDX-License-Identifier: MIT */
/*
 * Everything the event families use of the record core, in one include:
 * the process-wide state (state.h: ct, ct_on), the per-thread state
 * (thread.h), writing records (emit.h), names (names.h), the tracer's
 * voice (say.h) and the sinks' flush (sinks/sinks.h).  Core files include
 * only the headers they need.
 */
#pragma once


#include "common/config.h"
#include "common/util.h"
#include "common/vocabulary.h"
#include "profiler/abi/corprof.h"
#include "profiler/core/emit.h"
#include "profiler/core/jsonw.h"
#include "profiler/core/names.h"
#include "profiler/core/say.h"
#include "profiler/core/state.h"
#include "profiler/core/thread.h"
#include "profiler/sinks/sinks.h"
