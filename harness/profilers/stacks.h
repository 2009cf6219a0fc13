/* stacks.h - the profiler's calling contexts, written as folded stacks (stacks.c) */
#ifndef KPAIR_STACKS_H
#define KPAIR_STACKS_H

#include <stddef.h>

#define STACKS_FILE "stacks.txt"
#define FLAME_FILE "flame.svg"

/*
 * the plugin's contexts by id (0: the root): parent id, call site (the return address),
 * callee address, self instructions
 */
struct cct {
	size_t n;			/* ids 0..n-1 */
	unsigned long long *parent, *site, *callee, *self;
	const char *(*name)(void *ctx, unsigned long long addr);	/* the function at addr */
	void *ctx;
};

/* @path: the folded stacks of @c by function name, and user space's @user; -1 with an error */
int stacks_write(const char *path, const struct cct *c, unsigned long long user);

/*
 * @svg: the flame graph of the folded stacks @stock, or with @patched the differential one
 * of the two (flame.c); -1 with an error
 */
int flame_svg(const char *svg, const char *stock, const char *patched);

#endif
