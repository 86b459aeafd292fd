/* SPDX-License-Identifier: MIT */
/* Interned strings for the readers' compact per-thread and per-load state
 * (issue 27): each distinct string is kept once, in large chunks, and
 * equal strings give the same pointer, so a pointer can stand for the
 * string as a map key.  Nothing is freed before strpool_done. */
#pragma once

#include <stddef.h>

struct strpool;

/* An empty pool, or NULL on ENOMEM. */
struct strpool *strpool_new(void);
/* The pool's copy of the N bytes at S (NUL-terminated; S may hold NULs),
 * added if new; NULL on ENOMEM or for a NULL P.  Stays valid until
 * strpool_done. */
const char *strpool_intern(struct strpool *p, const char *s, size_t n);
/* The pool's copy of the N bytes at S if it has one, else NULL. */
const char *strpool_find(const struct strpool *p, const char *s, size_t n);
/* The length of a string the pool gave. */
size_t strpool_len(const char *s);
/* Free the pool and every string it gave (P may be NULL). */
void strpool_done(struct strpool *p);
