/* SPDX-License-Identifier: MIT */
/*
 * A NativeAOT program has no CoreCLR: nothing loads a profiler into it, and
 * `run` can only say so.  The mark chosen is the dynamic symbol
 * DotNetRuntimeDebugHeader: every NativeAOT runtime (.NET 7 on) exports it
 * for debuggers and createdump, so strip leaves it in .dynstr (seen in
 * .NET 8's and 10's), while the apphost, the single-file host (8, 9) and
 * libcoreclr (10) have none.  It is found the way the loader finds it, through the program
 * headers (PT_DYNAMIC's DT_STRTAB), which no strip removes, unlike section
 * names such as .dotnet_eh_table or __managedcode; strings such as
 * RhpNewFast or DOTNET_ would need a read of the whole file.  A few small
 * reads, and only when no trace was written.  64-bit ELF of this machine's
 * byte order: what a program that ran here is.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/run-nativeaot.h"
#include "common/util.h"

#define AOT_SYMBOL "DotNetRuntimeDebugHeader"

/* Read exactly LEN bytes at OFF. */
static bool read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len;
}

/* The file offset of virtual address VADDR, or -1: the PT_LOAD segment that holds it. */
static off_t vaddr_offset(const Elf64_Phdr *ph, int n, Elf64_Addr vaddr)
{
	for (int k = 0; k < n; k++)
		if (ph[k].p_type == PT_LOAD && vaddr >= ph[k].p_vaddr && vaddr - ph[k].p_vaddr < ph[k].p_filesz)
			return (off_t)(ph[k].p_offset + (vaddr - ph[k].p_vaddr));
	return -1;
}

/* Does the dynamic string table of the ELF file FD name AOT_SYMBOL? */
static bool dynstr_names_aot(int fd)
{
	static const unsigned char ident[] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
					       ELFDATA2LSB
#else
					       ELFDATA2MSB
#endif
	};
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	Elf64_Dyn dyn[512];
	Elf64_Addr strtab = 0;
	uint64_t strsz = 0;
	size_t n_dyn = 0;
	_cleanup_free_ char *str = NULL;

	if (!read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ident, sizeof(ident)) != 0 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > ELEMENTSOF(ph) ||
	    !read_at(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), (off_t)eh.e_phoff))
		return false;
	for (int k = 0; k < eh.e_phnum; k++)
		if (ph[k].p_type == PT_DYNAMIC) {
			n_dyn = ph[k].p_filesz / sizeof(Elf64_Dyn);
			n_dyn = n_dyn < ELEMENTSOF(dyn) ? n_dyn : ELEMENTSOF(dyn);
			if (!read_at(fd, dyn, n_dyn * sizeof(Elf64_Dyn), (off_t)ph[k].p_offset))
				return false;
		}
	for (size_t k = 0; k < n_dyn && dyn[k].d_tag != DT_NULL; k++) {
		if (dyn[k].d_tag == DT_STRTAB)
			strtab = dyn[k].d_un.d_ptr;
		else if (dyn[k].d_tag == DT_STRSZ)
			strsz = dyn[k].d_un.d_val;
	}
	off_t off = strtab ? vaddr_offset(ph, eh.e_phnum, strtab) : -1;

	/* a NativeAOT program's table is a few kB; 4 MiB bounds what is read */
	if (off < 0 || strsz < 2 || strsz > 4 << 20 || !(str = malloc(strsz)) || !read_at(fd, str, strsz, off))
		return false;
	return memmem(str, strsz, "\0" AOT_SYMBOL, sizeof(AOT_SYMBOL)) != NULL;
}

/* The file execvp runs for PROG: PROG itself when it has a '/', else the first executable
 * regular file of that name in PATH (/bin:/usr/bin when unset).  Malloc'd, or NULL. */
static char *program_path(const char *prog)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/'))
		return strdup(prog);
	for (const char *p = path ? path : "/bin:/usr/bin"; p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL) {
		size_t l = strcspn(p, ":");
		struct stat st;
		char *f = NULL;

		if (asprintf(&f, "%.*s%s%s", (int)l, p, l ? "/" : "", prog) < 0)
			return NULL;
		if (access(f, X_OK) == 0 && stat(f, &st) == 0 && S_ISREG(st.st_mode))
			return f;
		free(f);
	}
	return NULL;
}

bool run_is_nativeaot(const char *prog)
{
	_cleanup_free_ char *path = program_path(prog);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	bool aot;

	if (fd < 0)
		return false;
	aot = dynstr_names_aot(fd);
	close(fd);
	return aot;
}
