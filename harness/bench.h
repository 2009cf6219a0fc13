/*
 * bench.h - the user's own benchmarks: workload parameters that are text or
 * host files (a fio job file, a static program and its argv), checked on the
 * host before anything is made or booted, and put in the initramfs as
 * WL_FILES_DIR/<parameter>.
 */
#ifndef KPAIR_BENCH_H
#define KPAIR_BENCH_H

#include "config.h"
#include "image.h"

/* the text of parameter @i of the job's workload: as given, else its default (borrowed) */
const char *job_param_text(const struct job *job, int i);
/* parameter @i as /kpair/job gives it to the guest: a UNIT_FILE its guest path (caller frees) */
char *bench_param_value(const struct job *job, int i);
/*
 * The host path of UNIT_FILE parameter @i: absolute as given; relative, from
 * the job file's directory when the file gave it, else (--set, fio:FILE) from
 * the current directory. Caller frees.
 */
char *bench_file_path(const struct job *job, int i);
/* 1 when workload @wl has a UNIT_FILE parameter (a host file in the initramfs) */
int bench_has_files(const struct workload *wl);
/* job_load of "fio:FILE": configs/jobs/fio-job.job with params.jobfile=FILE */
int bench_job_load_fio(struct job *job, const char *file, char *const *sets, int nset);
/*
 * Every host-side check of the job's files and text parameters (job_load
 * calls it): the files exist; a fio job file has no option that leaves the
 * scratch disk and fio --parse-only takes it; a program is a static ELF
 * binary of the target's architecture. Errors name file:line: field.
 */
int bench_check(const struct job *job);

/* the initramfs entries bench_files_add made (their strings owned here) */
struct bench_files {
	char *src[WL_MAX_PARAMS], *dst[WL_MAX_PARAMS];
	int n;
};
void bench_files_init(struct bench_files *bf);
void bench_files_release(struct bench_files *bf);
/*
 * Append the job's UNIT_FILE parameters to @is as WL_FILES_DIR/<name> (mode
 * 0755), and copy each one under 256 KiB into @dir as param-<name> (the run
 * records the job file it ran).
 */
int bench_files_add(struct bench_files *bf, const struct job *job, struct initramfs_spec *is,
		    const char *dir);

/* "file:line" of parameter @i into @buf; "file" or "--set" when no line of the file gave it */
const char *bench_param_at(const struct job *job, int i, char *buf, size_t len);

/* command: the program is a static ELF binary for the target, the argv has no shell syntax (bench-cmd.c) */
int command_check(const struct job *job);
/* host-command: x86_64 host and target, the program's path, argv, match and metric (bench-cmd.c) */
int host_command_check(const struct job *job);
/* stress-ng: the host's stress-ng has the stressors, they fit job.timeout, x86_64 (bench-cmd.c) */
int stressng_check(const struct job *job);

/* fio-job: check fio job file @path; errors are "path:line: option: reason" (bench-fio.c) */
int fio_jobfile_check(const char *path);

#endif
