/* SPDX-License-Identifier: MIT */
/* A loaded module's metadata, read in place from the image the runtime
 * mapped (module-md.c; the reader is common/metadata.h). */
#pragma once

#include "common/metadata.h"
#include "profiler/abi/corprof.h"

/* The metadata of module M.  Opened afresh at each call (a few hundred
 * loads): a cached view could outlive a collectible module and point into
 * an unmapped image once its ModuleID is reused.  0 and *MD, -EOPNOTSUPP
 * (a dynamic or resource module: no image to read), -EBADMSG, -EIO (the
 * runtime would not say). */
int ct_module_md(ModuleID m, struct md *md);

/* Whether module M's image carries ReadyToRun code (md_ready_to_run), read
 * where the runtime mapped it.  1 (*MAJOR: the header's major version), 0,
 * -EOPNOTSUPP (dynamic or resource module), -EBADMSG, -EIO. */
int ct_module_ready_to_run(ModuleID m, unsigned *major);
