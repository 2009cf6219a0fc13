/*
 * config.h - job and target files (INI, parsed with inih) driven by one option
 * table per file kind: { section, key, type, offset, default, min, max, help }.
 * The same table serves job files, --set overrides and `kpair help job`.
 */
#ifndef KPAIR_CONFIG_H
#define KPAIR_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "../guest/workload.h"

enum opt_type { OPT_STR, OPT_SIZE, OPT_DURATION, OPT_COUNT, OPT_ENUM };

struct opt {
	const char *section;
	const char *key;
	enum opt_type type;
	size_t off;			/* offset of a char * or uint64_t in the struct */
	const char *def;		/* NULL: required */
	uint64_t min, max;
	const char *const *choices;	/* OPT_ENUM */
	const char *help;
};

struct job_param {
	char *key, *value;
	unsigned line;
};

struct job {
	char *file;
	/* [job] */
	char *name, *workload, *cmdline, *target, *accel, *mode, *pin, *pin_io, *host_cache;
	char *metric;			/* the primary metric, tested alone ("": the claim's) */
	uint64_t timeout_ms, boot_timeout_ms, memory, cpus, seed;
	/* [disk] */
	char *fs, *mkfs_options, *mount_options, *backing, *cache;
	uint64_t blocksize, disk_size;
	/* [claim]: the published figures this job reproduces */
	char *claim_source, *claim_metric, *claim_unit, *claim_direction;
	char *claim_stock, *claim_patched, *claim_change, *claim_note;
	/* [pair]: the kernels to build for `kpair ab JOB` without --stock/--patched */
	char *pair_source, *pair_patches, *pair_config;
	/* [params], checked against the workload's table */
	struct job_param params[WL_MAX_PARAMS];
	int nparams;
	uint64_t pval[WL_MAX_PARAMS];	/* resolved values, in workload table order */
	const struct workload *wl;
	unsigned char seen[64];		/* which table entries were given */
	unsigned line_of[64];		/* their line in the file; 0: default or --set */
};

struct target {
	char *file;
	char *name, *arch, *qemu, *machine, *console, *agent, *modules, *cpu;
	char *serial_dev, *blk_dev, *extra_append, *boot, *bios;
	char *kernel;			/* default kernel id, fetched as debian:<id> */
	char *initramfs;		/* "gzip" or "plain" */
	uint64_t page_size;		/* the kernel's page size, 0: any */
	unsigned char seen[32];
};

extern const struct opt job_opts[];
extern const struct opt target_opts[];

void job_init(struct job *job);
void job_release(struct job *job);
/*
 * Parse job file @path, then apply @nset "section.key=value" overrides, then
 * check the workload parameters. Errors name file:line: key. job_open (job.c) is the
 * whole load: fio:FILE too, and the files the parameters name
 */
int job_load(struct job *job, const char *path, char *const *sets, int nset);
/* the canonical text of every job key, for the guest and result.json */
const char *job_fs_module(const struct job *job);
/* the host CPU job.pin names, or -1 */
int job_pin_cpu(const struct job *job);
/* the host CPU job.pin_io names (QEMU's non-vCPU threads), or -1 */
int job_pin_io_cpu(const struct job *job);
/* QEMU's -icount value for job.mode, or NULL (wallclock) */
const char *job_icount(const struct job *job);

void target_init(struct target *t);
void target_release(struct target *t);
/* @name is a path or a name under configs/targets/<name>.target */
int target_load(struct target *t, const char *name);

/*
 * Any other INI file kind driven by an option table (@seen: one byte per
 * entry): parse @path, apply @nset "section.key=value" overrides, fill the
 * defaults. Errors are "file:line: section.key: reason".
 */
int opts_load(const char *path, const struct opt *tab, void *obj, unsigned char *seen,
	      char *const *sets, int nset);
/* print the table as help text */
void opts_help(const struct opt *tab);

#endif
