/*
 * workload.h - the guest workload table. Each workload is one file
 * guest/wl-<name>.c exporting `const struct workload wl_<name>`, listed once in
 * workloads.def. The harness links the same table to check a job's [params]
 * before any boot, so both sides agree on names, units, defaults and limits.
 */
#ifndef KPAIR_WORKLOAD_H
#define KPAIR_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "units.h"

#define WL_MAX_PARAMS 16

struct wl_param {
	const char *name;
	enum unit_kind kind;
	const char *def;	/* default, in the same syntax as a job file */
	uint64_t min, max;	/* inclusive limits, in base units */
	const char *help;
};

/* what the agent hands a workload: the mounted scratch fs and its parameters */
struct wl_ctx {
	const char *mnt;		/* mount point of the scratch disk */
	const char *dev;		/* the scratch block device */
	const char *fs;			/* fs type it is mounted with */
	const char *mount_opts;
	uint64_t seed;
	uint64_t val[WL_MAX_PARAMS];	/* parameter values, in table order */
	void *priv;			/* the workload's own state */
};

struct workload {
	const char *name;
	const char *help;
	const struct wl_param *params;	/* terminated by a { NULL } entry */
	int (*setup)(struct wl_ctx *ctx);	/* optional */
	int (*run)(struct wl_ctx *ctx);
	void (*teardown)(struct wl_ctx *ctx);	/* optional */
};

#define WORKLOAD(n) extern const struct workload wl_##n;
#include "workloads.def"
#undef WORKLOAD

extern const struct workload *const workloads[];

const struct workload *workload_find(const char *name);
/* index of parameter @name in @wl's table, or -1 */
int workload_param_index(const struct workload *wl, const char *name);
/* value of parameter @name (BUG if it is not in the table) */
uint64_t wl_param(const struct wl_ctx *ctx, const struct workload *wl, const char *name);

/*
 * Check one value against the table: 0 and *out set, or -1 with *why
 * pointing at a static reason.
 */
int wl_param_check(const struct wl_param *p, const char *value, uint64_t *out,
		   const char **why);



/* helpers for workloads (guest/workload.c) */
double wl_now(void);			/* CLOCK_MONOTONIC, seconds */
int wl_drop_caches(void);		/* sync, then drop page cache, dentries and inodes */
int wl_write_full(int fd, const void *buf, size_t len);
int wl_read_full(int fd, void *buf, size_t len);
#endif
