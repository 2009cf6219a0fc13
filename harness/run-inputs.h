/* run-inputs.h - what a run gives its guest besides the kernel (run-inputs.c) */
#ifndef KPAIR_RUN_INPUTS_H
#define KPAIR_RUN_INPUTS_H

#include <stddef.h>

struct disk;
struct job;
struct kernel;
struct modlist;
struct tarball;
struct target;

/* the text of /kpair/job, what the agent reads (guest/agent.c read_job); @input: a /dev/vdb */
char *run_job_text(const struct job *job, int input);
/* the target's modules and the job's fs module with their dependencies, from the kernel's
 * modules.dep (nothing when the kernel has no modules) */
int run_resolve_modules(const struct kernel *k, const struct target *t, const struct job *job,
			struct modlist *mods);

/* tar-extract's input: the cached tarball of the job's shape, its manifest in @dir */
int input_tarball(const struct job *job, const char *dir, struct tarball *tb);
/*
 * images/tools/<tool>-<arch>/<tool>, built by scripts/build-<tool> <arch> when missing;
 * its tool.json copied into @dir. NULL on failure (caller frees)
 */
char *tool_path(const char *tool, const char *arch, const char *dir);
/*
 * disk.backing=ram: the image's data extents and brd's parameters added to *@jobtext
 * and, for a kernel with brd built in, to *@cmdline; -1 with @why set
 */
int ram_disk_prepare(const struct job *job, const struct disk *disk, struct modlist *mods,
		     char **jobtext, char **cmdline, char *why, size_t len);
/*
 * " tsc_early_khz=N" for a local x86 guest under TCG in real time, else ""
 * (caller frees); a job.cmdline that sets its own tsc_early_khz keeps it
 */
char *tsc_append(const struct target *t, const char *accel, const char *icount,
		 int same_host, const char *cmdline);

#endif
