/* SPDX-License-Identifier: MIT */
/* Runtime ids to names, cached (names.c). */
#pragma once

#include <stdbool.h>

#include "profiler/abi/corprof.h"

/* Names, cached; never NULL ("?" when unknown).  Valid until shutdown. */
const char *ct_function_name(FunctionID f);
const char *ct_class_name(ClassID c);
const char *ct_module_path(ModuleID m);
const char *ct_assembly_name(AssemblyID a);
/* Is M System.Private.CoreLib (by its file name)? */
bool ct_module_is_corelib(ModuleID m);
/* A module's path (malloc'd, NULL when unknown or PATH is NULL) and its
 * assembly (0 when unknown), uncached. */
AssemblyID ct_module_info(ModuleID m, char **path);
