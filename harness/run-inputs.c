/*
 * run-inputs.c - what a run gives its guest besides the kernel: the text of /kpair/job,
 * the modules, tar-extract's input tarball, a workload's tool, a RAM disk's parameters and
 * the TSC rate on the kernel command line (run.c puts them together).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends/accel.h"
#include "bench.h"
#include "config.h"
#include "image.h"
#include "kernels/kernel.h"
#include "kernels/kneeds.h"
#include "preflight.h"
#include "result.h"
#include "run-inputs.h"
#include "samples.h"
#include "spawn.h"
#include "tarball.h"
#include "util.h"

/* the text of /kpair/job: what the agent needs, one key=value a line */
char *run_job_text(const struct job *job, int input)
{
	char *t = xasprintf("workload=%s\nfs=%s\ndev=/dev/vda\nmount_opts=%s\nseed=%llu\n%s",
			    job->workload, job->fs, job->mount_options,
			    (unsigned long long)job->seed, input ? "input=/dev/vdb\n" : "");
	int i;

	for (i = 0; job->wl->params[i].name; i++) {
		char *v = bench_param_value(job, i);
		char *n = xasprintf("%sparam.%s=%s\n", t, job->wl->params[i].name, v);

		free(v);
		free(t);
		t = n;
	}
	return t;
}

int run_resolve_modules(const struct kernel *k, const struct target *t, const struct job *job,
			struct modlist *mods)
{
	char *dep_path, *builtin_path, *dep = NULL, *builtin = NULL, *list, *tok, *save = NULL;
	const char *names[MODLIST_MAX];
	const char *fsmod = job_fs_module(job);
	int n = 0, ret = -1;

	if (!k->moddir)
		return 0;	/* everything built in */
	dep_path = xasprintf("%s/modules.dep", k->moddir);
	builtin_path = xasprintf("%s/modules.builtin", k->moddir);
	list = xstrdup(t->modules);
	if (read_file(dep_path, &dep, NULL) < 0)
		goto out;
	if (path_exists(builtin_path) && read_file(builtin_path, &builtin, NULL) < 0)
		goto out;
	for (tok = strtok_r(list, " \t,", &save); tok && n < MODLIST_MAX - 1;
	     tok = strtok_r(NULL, " \t,", &save))
		names[n++] = tok;
	if (fsmod)
		names[n++] = fsmod;
	if (!strcmp(job->backing, "ram"))
		names[n++] = "brd";
	if (job->wl->host_root && n < MODLIST_MAX - 2) {	/* the host's / over virtio-9p */
		names[n++] = "9pnet_virtio";
		names[n++] = "9p";
	}
	ret = modules_resolve(dep, builtin, names, n, mods);
out:
	free(dep);
	free(builtin);
	free(list);
	free(dep_path);
	free(builtin_path);
	return ret;
}

static uint64_t pval(const struct job *job, const char *name)
{
	int i = workload_param_index(job->wl, name);

	return i < 0 ? 0 : job->pval[i];
}

/* tar-extract's input: the cached tarball of the job's shape, its manifest in @dir */
int input_tarball(const struct job *job, const char *dir, struct tarball *tb)
{
	uint64_t scale = pval(job, "scale");
	struct tar_shape s = {
		.seed = job->seed,
		.files = wl_scaled(pval(job, "files"), scale, 1, 1),
		.dirs = wl_scaled(pval(job, "dirs"), scale, 1, 1),
		.bytes = wl_scaled(pval(job, "bytes"), scale, 1, 0),
	};
	char *copy;
	int ret;

	if (tarball_get(&s, tb) < 0)
		return -1;
	copy = xasprintf("%s/input.json", dir);
	ret = copy_file(tb->manifest, copy);
	free(copy);
	return ret;
}

/*
 * images/tools/<tool>-<arch>/<tool>, built by scripts/build-<tool> <arch>
 * (spawned by argv) when missing; its tool.json is copied into @dir.
 */
char *tool_path(const char *tool, const char *arch, const char *dir)
{
	char *tdir = xasprintf("%s/images/tools/%s-%s", kpair_root(), tool, arch);
	char *bin = xasprintf("%s/%s", tdir, tool), *json = xasprintf("%s/tool.json", tdir);
	char *script = xasprintf("%s/scripts/build-%s", kpair_root(), tool), *copy = NULL;
	const char *argv[] = { script, arch, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;

	if (!path_exists(bin) || !path_exists(json)) {
		info("run: %s for %s is not built; running %s %s", tool, arch, script, arch);
		if (spawn_run(argv, 1800000, &r) < 0 || r.exit_code) {
			error("%s %s failed (exit %d): %s", script, arch, r.exit_code, r.err);
			goto out_fail;
		}
	}
	if (!path_exists(bin) || !path_exists(json)) {
		error("%s %s made no '%s'", script, arch, bin);
		goto out_fail;
	}
	copy = xasprintf("%s/tool-%s.json", dir, tool);
	if (copy_file(json, copy) < 0)
		goto out_fail;
	goto out;
out_fail:
	free(bin);
	bin = NULL;
out:
	spawn_result_release(&r);
	free(copy);
	free(script);
	free(json);
	free(tdir);
	return bin;
}

/*
 * disk.backing=ram: the guest loads brd with one RAM disk the image's size,
 * copies the image's data extents from /dev/vda into it and mounts that, so
 * the workload's block I/O never leaves the guest (no host I/O, no idle wait).
 * Adds the job-file lines, brd's load parameters, and for a kernel with brd
 * built in the same parameters on the command line (*@cmdline).
 */
int ram_disk_prepare(const struct job *job, const struct disk *disk, struct modlist *mods,
			    char **jobtext, char **cmdline, char *why, size_t len)
{
	unsigned long long kib = (job->disk_size + 1023) / 1024;
	char *ext, *args, *t;
	uint64_t data;

	if (disk_extents(disk->path, 64 << 10, 65536, &ext, &data) < 0) {
		snprintf(why, len, "disk.backing=ram: %s", error_last());
		return -1;
	}
	if (data > job->memory / 2) {
		snprintf(why, len, "%s: disk.backing=ram: the image holds %llu MiB of data, more "
			 "than half of job.memory (%llu MiB)", job->file,
			 (unsigned long long)(data >> 20), (unsigned long long)(job->memory >> 20));
		free(ext);
		return -1;
	}
	t = xasprintf("%sram_size=%llu\n%s", *jobtext, (unsigned long long)job->disk_size, ext);
	free(*jobtext);
	*jobtext = t;
	free(ext);
	args = xasprintf("rd_nr=1 rd_size=%llu max_part=0", kib);
	if (!modlist_set_args(mods, "brd", args)) {
		t = xasprintf("%s brd.rd_nr=1 brd.rd_size=%llu brd.max_part=0", *cmdline, kib);
		free(*cmdline);
		*cmdline = t;
	}
	free(args);
	return 0;
}

/*
 * The host's TSC rate in kHz, or 0 when unknown. An x86 guest under TCG reads
 * the host's TSC (scaled by nothing) unless icount makes its time virtual,
 * and its kernel calibrates it against the emulated PIT in a loop that
 * expects real-time speed: under TCG that "fast" calibration fails now and
 * then (1 boot in 3-11 here), and the slow one costs ~0.4 s before the
 * kernel's clock starts and lands 0.1 % off. Given tsc_early_khz, the kernel
 * skips both (and refines the rate against the HPET a second later anyway).
 * Measured once per host boot against CLOCK_MONOTONIC_RAW, kept in
 * images/.host-tsc as "<boot_id> <kHz>".
 */
static long host_tsc_khz(void)
{
#if defined(__x86_64__)
	char boot_id[64] = "", *cache, *cached, *flags = NULL;
	struct timespec t0, t1, pause = { 0, 50000000 };
	unsigned long long c0, c1;
	unsigned lo, hi;
	long khz = 0;
	size_t n;
	FILE *f;

	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (!f || !fgets(boot_id, sizeof(boot_id), f)) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	boot_id[strcspn(boot_id, "\n")] = '\0';
	cache = xasprintf("%s/images/.host-tsc", kpair_root());
	cached = cache_get(cache, boot_id);
	if (cached)
		khz = atol(cached);
	free(cached);
	if (khz > 0)
		goto out;
	/* only a TSC that ticks at one rate whatever the host's power states do */
	f = fopen("/proc/cpuinfo", "r");
	n = 0;
	while (f && getline(&flags, &n, f) > 0 && strncmp(flags, "flags", 5))
		;
	if (f)
		fclose(f);
	if (!flags || strncmp(flags, "flags", 5) || !strstr(flags, " constant_tsc") ||
	    !strstr(flags, " nonstop_tsc"))
		goto out;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	c0 = (unsigned long long)hi << 32 | lo;
	nanosleep(&pause, NULL);
	clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	c1 = (unsigned long long)hi << 32 | lo;
	khz = (long)((c1 - c0) / ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6));
	if (khz > 0) {
		char *v = xasprintf("%ld", khz);

		cache_put(cache, boot_id, v);
		free(v);
	}
out:
	free(flags);
	free(cache);
	return khz;
#else
	return 0;	/* QEMU on a non-x86 host feeds the guest's TSC from another clock */
#endif
}

/*
 * " tsc_early_khz=N" for a local x86 guest under TCG in real time, else ""
 * (caller frees); a job.cmdline that sets its own tsc_early_khz keeps it
 */
char *tsc_append(const struct target *t, const char *accel, const char *icount,
			int same_host, const char *cmdline)
{
	long khz;

	if (strcmp(accel, "tcg") || (icount && *icount) || strstr(cmdline, "tsc_early_khz=") ||
	    (strcmp(t->arch, "amd64") && strcmp(t->arch, "i386")) ||
	    !same_host)	/* a remote host's TSC is not this one's */
		return xstrdup("");
	khz = host_tsc_khz();
	return khz > 0 ? xasprintf(" tsc_early_khz=%ld", khz) : xstrdup("");
}
