/* SPDX-License-Identifier: MIT */
/* Reading fields of managed objects: where a field sits (metadata and class
 * layout) and a copy of memory that cannot fault (fields.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/metadata.h"
#include "profiler/abi/corprof.h"

/* Offset of field NAME of class CLS (TypeDef token TD of the module whose
 * metadata is MD) from the object's start (its ObjectID), or 0 when unknown
 * (no field sits at 0: the header does). */
ULONG ct_field_offset(const struct md *md, mdTypeDef td, ClassID cls, const char *name);

/* Copy N bytes at ADDR of this process into OUT; an address that is not
 * mapped gives -EFAULT instead of a crash.  0, or -errno (-ENOSYS or
 * -EPERM: the kernel refuses such copies here). */
int ct_read_mem(uintptr_t addr, void *out, size_t n);
