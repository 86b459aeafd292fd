/* SPDX-License-Identifier: MIT */
/* Little-endian integers and bounds of data read from disk or from an
 * image (the metadata and PDB readers, their tests). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Whether [OFF, OFF+LEN) lies inside SIZE bytes, without overflow. */
static inline bool inside(uint64_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}
