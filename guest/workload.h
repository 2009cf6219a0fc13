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
#define WL_PARAM_TEXT_MAX 3072	/* longest UNIT_STRING value (one /kpair/job line) */
/* where a UNIT_FILE parameter's file is in the guest: WL_FILES_DIR/<parameter name> */
#define WL_FILES_DIR "/kpair/files"

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
	const char *input;		/* read-only input disk (WL_INPUT_*), or "" */
	uint64_t seed;
	uint64_t val[WL_MAX_PARAMS];	/* parameter values, in table order */
	const char *str[WL_MAX_PARAMS];	/* UNIT_STRING text, UNIT_FILE path in the guest */
	void *priv;			/* the workload's own state */
};

/* the scratch disk a job asks for, as the harness's check hook sees it */
struct wl_disk {
	const char *fs;			/* ext2 ext3 ext4 xfs none */
	uint64_t blocksize;		/* fs block size */
	uint64_t size;			/* bytes of the scratch image */
	long page_size;			/* the guest kernel's page size */
};

/*
 * A kernel option a workload needs (without CONFIG_; "A|B": either will do), and
 * why. With @param and @word: only when the string parameter @param lists @word
 * among its space-separated words (a stress-ng stressor). The harness checks a
 * kernel's config against them before anything is made or booted, and forces
 * them onto the configs of the kernels it builds for the job.
 */
struct wl_kneed {
	const char *option;
	const char *why;
	const char *param, *word;
};

/* what the harness attaches as the second disk (/dev/vdb) */
enum wl_input {
	WL_INPUT_NONE,
	WL_INPUT_TARBALL,	/* a ustar stream made from params files, dirs, bytes, scale */
};

struct workload {
	const char *name;
	const char *help;
	const struct wl_param *params;	/* terminated by a { NULL } entry */
	/*
	 * Optional, run by the harness before any image is made: 0, or -1 with
	 * a reason in @why (e.g. "file_size 4G does not fit the 2G disk").
	 */
	int (*check)(const uint64_t *val, const struct wl_disk *disk, char *why, size_t len);
	int (*setup)(struct wl_ctx *ctx);	/* optional */
	int (*run)(struct wl_ctx *ctx);
	void (*teardown)(struct wl_ctx *ctx);	/* optional */
	enum wl_input input;
	const char *tool;	/* host-built static tool put in /kpair/tools/<tool>, or NULL */
	int host_root;		/* the host's / read-only in the guest (virtio-9p tag "hostroot") */
	const struct wl_kneed *kneeds;	/* kernel options it needs, { NULL }-terminated, or NULL */
};

#define WORKLOAD(n) extern const struct workload wl_##n;
#include "workloads.def"
#undef WORKLOAD

extern const struct workload *const workloads[];
/* fio's kernel needs, shared by the fio and fio-job workloads */
extern const struct wl_kneed wl_fio_kneeds[];

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

/*
 * Scaling: every published workload has a `scale` parameter in permille
 * (1000 = the published recipe, 50 = 5 %). Sizes and op counts are multiplied
 * by scale/1000, rounded down to a multiple of @align, and kept >= @min.
 * The harness uses the same function, so both sides agree on what ran.
 */
#define WL_SCALE_PARAM { "scale", UNIT_COUNT, "1000", 1, 1000, \
	"permille of the published sizes and counts (1000 = full recipe, 50 = 5 %)" }
uint64_t wl_scaled(uint64_t v, uint64_t permille, uint64_t align, uint64_t min);

/* bytes of file data a fresh @disk holds, roughly (metadata, journal, log) */
uint64_t wl_disk_usable(const struct wl_disk *disk);
/* 0 when @bytes fit on @disk; else -1 with a reason naming @what */
int wl_check_fits(const char *what, uint64_t bytes, const struct wl_disk *disk,
		  char *why, size_t len);

/* a seeded generator (splitmix64): the same seed gives the same stream everywhere */
struct wl_rand {
	uint64_t s;
};
void wl_rand_init(struct wl_rand *r, uint64_t seed, uint64_t stream);
uint64_t wl_rand_next(struct wl_rand *r);
uint64_t wl_rand_below(struct wl_rand *r, uint64_t n);	/* uniform in [0, n) */
double wl_rand_unit(struct wl_rand *r);			/* uniform in [0, 1) */

/*
 * Latency summary of @n values in microseconds (sorted in place), as samples
 * <prefix>_p50_us, _p90_us, _p99_us, _max_us, _min_us, _mean_us and a log2
 * histogram <prefix>_hist_le_<2^k>us for k = 0..WL_HIST_MAX_LOG2 plus
 * <prefix>_hist_gt_<2^max>us. Every bucket is sent, empty or not: the
 * bucket counts add up to @n.
 */
#define WL_HIST_MAX_LOG2 24	/* 2^24 us = 16.8 s */
int wl_lat_report(const char *prefix, double *us, size_t n);

/*
 * fio-job (guest/wl-fiojob.c): fio's --output-format=json output, @len bytes
 * at @out, as samples <job>.<dir>.<field>; -1 with an error record when it
 * has no jobs, a job's error, or does not parse. The unit tests call it too.
 */
int fiojob_report(const char *out, size_t len);
/*
 * command (guest/wl-command.c): the program's stdout, @len bytes at @out
 * (changed in place), its kpair-metric lines sent as samples; -1 with an
 * error record naming the first line that does not parse.
 */
int command_report(char *out, size_t len);
/*
 * stress-ng (guest/wl-stressng.c): stress-ng's --yaml output of one run of
 * @stressor, @len bytes at @yaml (changed in place), as samples; -1 with an
 * error record naming the line that is not what stress-ng writes.
 */
int stressng_report(char *yaml, size_t len, const char *stressor);
/* host-command: the first number on @out's first line with @match, as @metric "NAME UNIT [dir]" */
int command_extract(const char *out, size_t len, const char *match, const char *metric);

/*
 * The host's / (virtio-9p tag "hostroot") read-only on /host, with the
 * guest's /proc, /sys, /dev, a tmpfs /tmp and the scratch fs on /mnt over it,
 * for a workload with .host_root (guest/wl-command.c); teardown undoes it.
 */
#define WL_HOST_ROOT "/host"
int wl_host_root_setup(struct wl_ctx *ctx);
void wl_host_root_teardown(struct wl_ctx *ctx);

/* umount ctx->mnt and mount ctx->dev there again (cold cache for that fs) */
int wl_remount(const struct wl_ctx *ctx);
#endif
