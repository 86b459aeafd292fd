/* SPDX-License-Identifier: MIT */
/* What md-dump's two parts (md-dump.c, md-mangle.c) share. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* What a reader's error means, for one line. */
const char *why(int k);

/* The whole of PATH in a malloc'd buffer of exactly its size: 0, or -errno. */
int read_whole(const char *path, uint8_t **ret, size_t *size);

/* md-dump mangle FILE: exit status. */
int cmd_mangle(const char *path);

/* Little-endian integers. */
static inline uint16_t le16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
