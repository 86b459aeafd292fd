/* SPDX-License-Identifier: MIT */
/*
 * A module's metadata read in place.  IMetaDataImport is what the
 * profiling API offers, but GetModuleMetaData converts the module's
 * metadata to CoreCLR's read-write form for the rest of the process, and
 * the runtime's own lookups in it then get slower (measured: Kestrel's
 * custom-attribute lookups while it formats a stack trace, 3.5x).  The
 * image is mapped anyway; GetModuleInfo2 gives its base and says whether
 * it lies as the file or mapped by sections.
 */
#include <errno.h>

#include "profiler/abi/info.h"
#include "profiler/core/module-md.h"
#include "profiler/core/state.h"

#define COR_PRF_MODULE_DYNAMIC 0x04u
#define COR_PRF_MODULE_RESOURCE 0x10u
#define COR_PRF_MODULE_FLAT_LAYOUT 0x20u

/* M's image as the runtime mapped it: base, extent and layout. */
static int module_image(ModuleID m, const uint8_t **base, size_t *size, enum md_layout *layout)
{
	AssemblyID a = 0;
	DWORD flags = 0;
	ULONG len = 0;

	*base = NULL;
	if (FAILED(info_GetModuleInfo2(ct.info, m, base, 0, &len, NULL, &a, &flags)) || !*base)
		return -EIO;
	if (flags & (COR_PRF_MODULE_DYNAMIC | COR_PRF_MODULE_RESOURCE))
		return -EOPNOTSUPP;
	*layout = (flags & COR_PRF_MODULE_FLAT_LAYOUT) ? MD_LAYOUT_FILE : MD_LAYOUT_MAPPED;
	return md_loaded_image_size(*base, *layout, size);
}

/* Does M's image carry ReadyToRun code? */
int ct_module_ready_to_run(ModuleID m, unsigned *major)
{
	const uint8_t *base;
	enum md_layout layout;
	size_t size;
	int k;

	*major = 0;
	k = module_image(m, &base, &size, &layout);
	if (k < 0)
		return k;
	return md_ready_to_run(base, size, layout, major);
}

/* Open M's metadata from its base address. */
int ct_module_md(ModuleID m, struct md *md)
{
	const uint8_t *base;
	enum md_layout layout;
	size_t size;
	int k;

	k = module_image(m, &base, &size, &layout);
	if (k < 0)
		return k;
	return md_open_image(base, size, layout, md);
}
