/* result.h - result.json of a run, and its summary on the terminal */
#ifndef KPAIR_RESULT_H
#define KPAIR_RESULT_H

#include <jansson.h>

#include "backends/vm.h"
#include "config.h"
#include "image.h"
#include "kernels/kernel.h"
#include "samples.h"

struct run_info {
	const char *run_id;
	const char *dir;
	const char *started;
	const struct job *job;
	const struct target *target;
	const struct kernel *kernel;
	const char *accel, *accel_why;
	const char *backend;		/* boot backend's name (NULL: qemu) */
	const char *dest;		/* where the run was sent (a libvirt URI), or NULL */
	const char *qemu_version;
	const char *boot_image;		/* what -kernel was given */
	const struct disk *disk;
	const struct modlist *mods;
	long initramfs_bytes;
	int initramfs_gzip;
	double prepare_s;		/* image and disk preparation */
	int pinned_cpu;			/* the host CPU QEMU was bound to, or -1 */
	double cache_drop_s;		/* job.host_cache=drop: its time, else -1 */
	const struct vm_result *vm;
	const struct samples *samples;
	const char *setup_error;	/* set when the run never booted */
	const char *profile;		/* a profiled run's profiler, or NULL */
	const char *profile_error;	/* why it left no profile.json, or NULL */
};

/* the last @lines lines of @text, for excerpts (caller frees) */
char *tail_lines(const char *text, int lines);
/*
 * The guest's seconds from power-on to hello, from the done record's poweron
 * (its cycle counter at done) and the two records' uptimes; -1 where there is
 * none, or it cannot be one (behind the kernel's clock).
 */
double guest_poweron_at_hello(const json_t *hello, const json_t *done);
/* result.json as a new reference */
json_t *result_json(const struct run_info *ri);
/* write @dir/result.json atomically */
int result_write(const struct run_info *ri);
/* one summary line (and an excerpt on failure) on stdout */
void result_print(const struct run_info *ri);

#endif
