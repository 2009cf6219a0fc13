/*
 * kneeds.h - what a job needs of its kernel's configuration: its workload's
 * options (guest/workload.h, .kneeds), the host root's virtio-9p, the scratch
 * file system, the RAM disk of disk.backing = ram. Checked against a kernel's
 * config before anything is made or booted, and forced onto the configs of the
 * kernels kpair builds for a job.
 */
#ifndef KPAIR_KNEEDS_H
#define KPAIR_KNEEDS_H

#include <stddef.h>

#include "config.h"
#include "kernel.h"

#define KNEED_MAX 48

struct kneed {
	const char *option;	/* without CONFIG_; "A|B": either */
	const char *who;	/* what needs it: the workload, "the host root", "disk.fs = xfs" */
	const char *why;
};

/* the options @job needs, into @out (room for KNEED_MAX); returns how many */
int job_kneeds(const struct job *job, struct kneed *out);

/*
 * Does kernel config text @config meet @job's needs? 0, or -1 with @why naming the
 * first option missing, what needs it and the fix. @id names the kernel.
 */
int kneeds_check(const char *config, const char *id, const struct job *job, char *why,
		 size_t len);
/* the same for kernel @k of the store (its config file); a kernel without one passes */
int kernel_kneeds_check(const struct kernel *k, const struct job *job, char *why, size_t len);

/* @job's needs as fragment lines "CONFIG_X=y\n" (for "A|B", A), caller frees */
char *kneeds_fragment(const struct job *job);

#endif
