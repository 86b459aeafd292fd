/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), for the PDB Checksum entry of an assembly's debug
 * directory (src/common/pdb.c).  None of the libraries clrtrace links
 * (jansson, libsystemd, zlib) offers it, and a crypto library for one
 * hash of a file the user already has is not worth the dependency.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SHA256_SIZE 32

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;      /* hashed so far */
	uint8_t block[64];   /* the partial block */
	size_t fill;
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t n);
void sha256_final(struct sha256 *c, uint8_t out[SHA256_SIZE]);

/* The hash of N bytes at DATA in one call. */
void sha256(const void *data, size_t n, uint8_t out[SHA256_SIZE]);
