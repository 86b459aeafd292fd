/* SPDX-License-Identifier: MIT */
/* Field offsets of managed classes; reads of memory that may have been
 * freed under us (a garbage collection moving an object we only hold the
 * address of) without crashing the host. */
#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/util.h"
#include "profiler/abi/info.h"
#include "profiler/core/fields.h"
#include "profiler/core/state.h"

#define MAX_FIELDS 64

/* Offset of NAME in CLS (see fields.h). */
ULONG ct_field_offset(const struct md *md, mdTypeDef td, ClassID cls, const char *name)
{
	COR_FIELD_OFFSET fo[MAX_FIELDS];
	ULONG n = 0, size = 0;
	uint32_t row = 0;
	mdFieldDef fd;

	if (MD_TOKEN_TABLE(td) != MD_TYPEDEF || md_find_field(md, MD_TOKEN_ROW(td), name, &row) < 0)
		return 0;
	fd = MD_TOKEN(MD_FIELD, row);
	if (FAILED(info_GetClassLayout(ct.info, cls, fo, ELEMENTSOF(fo), &n, &size)))
		return 0;
	for (ULONG i = 0; i < n && i < ELEMENTSOF(fo); i++)
		if (fo[i].ridOfField == fd)
			return fo[i].ulOffset;
	return 0;
}

/* Copy through the kernel, which checks the address (see fields.h). */
int ct_read_mem(uintptr_t addr, void *out, size_t n)
{
	struct iovec local = { .iov_base = out, .iov_len = n };
	struct iovec remote = { .iov_base = (void *)addr, .iov_len = n };
	ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	if (r < 0)
		return -errno;
	return (size_t)r == n ? 0 : -EFAULT;
}
