/*
 * jwalk.h - a minimal JSON walker for the guest: every number and string of a
 * JSON text, with its path, handed to callbacks. Strings are cut at 127 bytes
 * and their escapes kept as they are.
 */
#ifndef KPAIR_JWALK_H
#define KPAIR_JWALK_H

#include <stddef.h>

struct jwalk {
	const char *p, *end;	/* the text left to read */
	char path[256];
	size_t plen;
	void (*num)(void *user, const char *path, double v);
	void (*str)(void *user, const char *path, const char *s);	/* optional */
	void *user;
	int depth;
};

/* walk one value at j->p: 0, or -1 where it does not parse (j->p near there) */
int jw_value(struct jwalk *j);

#endif
