/* run.c - one run: config -> kernel -> image -> boot -> channel/samples -> report */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "config.h"
#include "image.h"
#include "kernel.h"
#include "preflight.h"
#include "report.h"
#include "run.h"
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

/*
 * --keep-disk with disk.backing=tmpfs: the image moves from /dev/shm to the
 * run directory as scratch.img (cp --sparse=always: only its data), where
 * --keep-disk leaves it for file backing too
 */
static void keep_tmpfs_disk(const struct disk *d, const char *dir)
{
	char *dst = xasprintf("%s/scratch.img", dir);
	const char *argv[] = { "cp", "--sparse=always", d->path, dst, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;

	if (spawn_checked(argv, NULL, 600000, &r) == 0)
		unlink(d->path);
	else
		error("--keep-disk: the image stays in %s", d->path);
	spawn_result_release(&r);
	free(dst);
}

/* the harness's part of a job check, before anything is made: disk and workload */
static int check_job(const struct job *job, const struct kernel *k)
{
	struct wl_disk d = { job->fs, job->blocksize, job->disk_size, k->page_size };
	char why[512];

	if (disk_check(job->fs, job->blocksize, job->disk_size, job->mkfs_options, k->release,
		       k->page_size, why, sizeof(why)) < 0)
		return error("%s: disk: %s", job->file, why);
	if (job->wl->check && job->wl->check(job->pval, &d, why, sizeof(why)) < 0)
		return error("%s: params: workload %s: %s", job->file, job->wl->name, why);
	return 0;
}

static uint64_t pval(const struct job *job, const char *name)
{
	int i = workload_param_index(job->wl, name);

	return i < 0 ? 0 : job->pval[i];
}

/* tar-extract's input: the cached tarball of the job's shape, its manifest in @dir */
static int input_tarball(const struct job *job, const char *dir, struct tarball *tb)
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
static char *tool_path(const char *tool, const char *arch, const char *dir)
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
static int ram_disk_prepare(const struct job *job, const struct disk *disk, struct modlist *mods,
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
static char *tsc_append(const struct target *t, const char *accel, const char *icount,
			const char *uri, const char *cmdline)
{
	long khz;

	if (strcmp(accel, "tcg") || (icount && *icount) || strstr(cmdline, "tsc_early_khz=") ||
	    (strcmp(t->arch, "amd64") && strcmp(t->arch, "i386")) ||
	    (uri && strncmp(uri, "qemu:///", 8)))	/* a remote host's TSC is not this one's */
		return xstrdup("");
	khz = host_tsc_khz();
	return khz > 0 ? xasprintf(" tsc_early_khz=%ld", khz) : xstrdup("");
}

static char *make_run_id(const struct job *job)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	return xasprintf("%s-%s-%d", job->name, stamp, (int)getpid());
}

int run_one(const struct run_opts *o)
{
	struct job job;
	struct target target;
	struct kernel kernel;
	struct modlist mods;
	struct disk disk;
	struct samples samples;
	struct vm_result vm;
	struct channel ch;
	struct run_info ri = { .pinned_cpu = -1, .cache_drop_s = -1 };
	struct initramfs_spec is = { 0 };
	struct vm_spec spec = { 0 };
	struct tarball tb;
	struct bench_files bf;
	char accel[16] = "", accel_why[256] = "", *run_id = NULL, *dir = NULL, *agent = NULL;
	char *initrd = NULL, *img = NULL, *jobtext = NULL, *append = NULL, *p = NULL, *started;
	char *tsc = NULL;
	char setup_err[512] = "", *pvh = NULL, *tool = NULL;
	char *tool_dst = NULL, *pid_file = NULL, *disk_proc = NULL, *initrd_proc = NULL;
	char *ramcmd = NULL;
	const char *kid;
	struct stat st;
	double t0 = mono_now();
	int ret = -1, kernel_broken = 0, lock = -1, disk_fd = -1, initrd_fd = -1, gzip = 0;

	job_init(&job);
	target_init(&target);
	kernel_init(&kernel);
	modlist_init(&mods);
	disk_init(&disk);
	vm_result_init(&vm);
	tarball_init(&tb);
	bench_files_init(&bf);
	memset(&samples, 0, sizeof(samples));
	samples.fd = -1;
	started = utc_stamp();

	if (job_load(&job, o->job_path, o->sets, o->nset) < 0)
		goto out;
	if (target_load(&target, job.target) < 0)
		goto out;
	kid = o->kernel ? o->kernel : target.kernel;
	if (!*kid) {
		error("no --kernel, and target '%s' names no default kernel", target.name);
		goto out;
	}
	if (kernel_load(kid, &kernel) < 0) {
		if (!kernel_in_store(kid)) {
			error("kernel '%s' is not in the store (kpair kernel list; kpair kernel fetch "
			      "%s%s)", kid, strncmp(kid, "debian:", 7) ? "debian:" : "", kid);
			goto out;
		}
		/* in the store but unusable (image gone, kernel.json broken): recorded below */
		snprintf(setup_err, sizeof(setup_err), "%s", error_last());
		kernel_broken = 1;
	}
	if (!kernel_broken && strcmp(kernel.arch, target.arch)) {
		error("kernel '%s' is %s, target '%s' wants %s", kernel.id, kernel.arch,
		      target.name, target.arch);
		goto out;
	}
	if (!kernel_broken && target.page_size && (uint64_t)kernel.page_size != target.page_size) {
		error("kernel '%s' has %ld-byte pages, target '%s' wants %llu", kernel.id,
		      kernel.page_size, target.name, (unsigned long long)target.page_size);
		goto out;
	}
	if (!kernel_broken && check_job(&job, &kernel) < 0)
		goto out;
	agent = xasprintf("%s/%s", kpair_root(), target.agent);
	if (!path_exists(agent)) {
		error("guest agent '%s' is missing (run make)", agent);
		goto out;
	}
	run_id = make_run_id(&job);
	dir = o->out_dir ? xstrdup(o->out_dir) : xasprintf("%s/results/%s", kpair_root(), run_id);
	if (mkdir_p(dir, 0755) < 0 || (lock = dir_lock(dir)) < 0) {
		ret = RUN_SETUP_FAILED;	/* nothing written: the directory is not ours */
		goto out;
	}

	ri.run_id = run_id;
	ri.dir = dir;
	ri.started = started;
	ri.job = &job;
	ri.target = &target;
	ri.kernel = &kernel;
	ri.disk = &disk;
	ri.mods = &mods;
	ri.vm = &vm;
	/* compressed or not: whichever the target's boot path measured faster */
	gzip = !strcmp(o->initramfs ? o->initramfs : target.initramfs, "gzip");
	ri.initramfs_gzip = gzip;

	p = xasprintf("%s/samples.jsonl", dir);
	if (samples_open(&samples, p) < 0) {
		snprintf(setup_err, sizeof(setup_err), "%s", error_last());
		goto out_report;
	}
	ri.samples = &samples;
	ri.qemu_version = qemu_version(target.qemu);

	/* image: initramfs and scratch disk */
	if (o->on_phase)
		o->on_phase(o->phase_user, "prepare");
	if (kernel_broken || kernel_image_check(&kernel, setup_err, sizeof(setup_err)) < 0 ||
	    agent_check(agent, target.arch, setup_err, sizeof(setup_err)) < 0)
		goto out_report;
	if (run_resolve_modules(&kernel, &target, &job, &mods) < 0) {
		snprintf(setup_err, sizeof(setup_err), "module resolution failed for kernel %s: %s",
			 kernel.id, error_last());
		goto out_report;
	}
	if (module_files_check(kernel.moddir, &mods, setup_err, sizeof(setup_err)) < 0)
		goto out_report;
	if (job.wl->input == WL_INPUT_TARBALL && input_tarball(&job, dir, &tb) < 0) {
		snprintf(setup_err, sizeof(setup_err), "cannot make the input tarball");
		goto out_report;
	}
	if (job.wl->tool && !(tool = tool_path(job.wl->tool, target.arch, dir))) {
		snprintf(setup_err, sizeof(setup_err), "cannot build %s for %s", job.wl->tool,
			 target.arch);
		goto out_report;
	}
	if (tool) {	/* the guest runs it as /kpair/tools/<tool> */
		tool_dst = xasprintf("kpair/tools/%s", job.wl->tool);
		is.extra[is.nextra++] = (struct initramfs_file){ NULL, "kpair/tools", 0755 };
		is.extra[is.nextra++] = (struct initramfs_file){ tool, tool_dst, 0755 };
	}
	if (bench_files_add(&bf, &job, &is, dir) < 0) {	/* the user's job file or program */
		snprintf(setup_err, sizeof(setup_err), "%s", error_last());
		goto out_report;
	}
	if (job.wl->host_root && strcmp(backend_find(o->backend)->name, "qemu")) {
		snprintf(setup_err, sizeof(setup_err), "workload %s shares the host's / over "
			 "virtio-9p: the qemu backend only", job.wl->name);
		goto out_report;
	}
	if (strcmp(job.backing, "file"))	/* tmpfs, and ram's source image */
		img = xasprintf("/dev/shm/kpair-%s-scratch.img", run_id);
	else
		img = xasprintf("%s/scratch.img", dir);
	if (disk_create(&disk, img, job.disk_size, job.fs, job.blocksize, job.mkfs_options) < 0) {
		snprintf(setup_err, sizeof(setup_err), "cannot make the %s scratch disk: %s", job.fs,
			 error_last());
		goto out_rm_initrd;
	}
	jobtext = run_job_text(&job, tb.path != NULL);
	ramcmd = xstrdup("");
	if (!strcmp(job.backing, "ram") &&
	    ram_disk_prepare(&job, &disk, &mods, &jobtext, &ramcmd, setup_err, sizeof(setup_err)) < 0)
		goto out_rm_disk;
	/*
	 * Unless it is to be kept, the image is unlinked now and QEMU opens it
	 * through our descriptor: whatever kills kpair, no image is left behind.
	 */
	if (!o->keep_disk && (disk_fd = open(disk.path, O_RDWR | O_CLOEXEC)) >= 0 &&
	    unlink(disk.path) == 0)
		disk_proc = xasprintf("/proc/%d/fd/%d", (int)getpid(), disk_fd);
	initrd = xasprintf("%s/initramfs.cpio%s", dir, gzip ? ".gz" : "");
	is.agent = agent;
	is.moddir = kernel.moddir;
	is.mods = &mods;
	is.job_text = jobtext;
	is.gzip = gzip;
	if (initramfs_write(initrd, &is) < 0) {
		snprintf(setup_err, sizeof(setup_err), "%s", error_last());
		goto out_rm_disk;
	}
	if (!stat(initrd, &st))
		ri.initramfs_bytes = st.st_size;
	/* QEMU reads it through our descriptor: nothing is left if kpair is killed */
	if ((initrd_fd = open(initrd, O_RDONLY | O_CLOEXEC)) >= 0 && unlink(initrd) == 0)
		initrd_proc = xasprintf("/proc/%d/fd/%d", (int)getpid(), initrd_fd);
	accel_choose(&target, kernel.image, job.accel, accel, sizeof(accel), accel_why,
		     sizeof(accel_why));
	ri.accel = accel;
	ri.accel_why = accel_why;
	ri.prepare_s = mono_now() - t0;
	/* the host's page cache as the job asks: dropped, so no run inherits another's */
	if (!strcmp(job.host_cache, "drop")) {
		double t1 = mono_now();

		if (host_cache_drop() < 0) {
			snprintf(setup_err, sizeof(setup_err), "job.host_cache=drop: %s", error_last());
			goto out_rm_disk;
		}
		ri.cache_drop_s = mono_now() - t1;
	}

	/* boot, channel, samples */
	tsc = tsc_append(&target, accel, job_icount(&job), o->uri, job.cmdline);
	append = xasprintf("console=%s panic=-1 %s %s%s%s", target.console, target.extra_append,
			   job.cmdline, ramcmd, tsc);
	free(p);
	p = xasprintf("%s/console.log", dir);
	spec.target = &target;
	spec.name = run_id;
	spec.kernel = kernel.image;
	if (!strcmp(target.boot, "pvh") && kernel_pvh_image(&kernel, &pvh) == 0 && pvh)
		spec.kernel = pvh;
	ri.boot_image = spec.kernel;
	spec.initrd = initrd_proc ? initrd_proc : initrd;
	spec.append = append;
	spec.accel = accel;
	spec.memory = job.memory;
	spec.cpus = job.cpus;
	spec.disks[0].path = disk_proc ? disk_proc : disk.path;
	if (strcmp(job.cache, "auto"))
		disk.cache = job.cache;
	spec.disks[0].cache = disk.cache;
	spec.disks[0].readonly = !strcmp(job.backing, "ram");	/* only copied from */
	spec.icount = job_icount(&job);
	spec.host_root = job.wl->host_root ? "/" : NULL;
	spec.cpu = job_pin_cpu(&job);
	ri.pinned_cpu = spec.cpu;
	spec.io_cpu = job_pin_io_cpu(&job);
	spec.ndisks = 1;
	if (tb.path) {
		spec.disks[1].path = tb.path;
		spec.disks[1].cache = disk_cache_mode(tb.path);
		spec.disks[1].readonly = 1;
		spec.ndisks = 2;
	}
	spec.console_log = p;
	{
		char *qlog = xasprintf("%s/qemu.log", dir);

		spec.qemu_log = qlog;
		pid_file = xasprintf("%s/qemu.pid", dir);
		spec.pid_file = pid_file;
		spec.boot_timeout = job.boot_timeout_ms / 1000.0;
		spec.workload_timeout = job.timeout_ms / 1000.0;
		channel_init(&ch, samples_record, &samples);
		spec.on_phase = o->on_phase;
		spec.phase_user = o->phase_user;
		if (o->on_phase)
			o->on_phase(o->phase_user, "boot");
		info("run %s: booting %s (%s) with workload %s on %s", run_id, kernel.id, accel,
		     job.workload, job.fs);
		spec.uri = o->uri;
		spec.stage = o->stage;
		spec.resume_from = o->resume_from;
		ri.uri = o->uri;
		ri.backend = backend_find(o->backend)->name;
		if (backend_find(o->backend)->run(&spec, &ch, &vm) < 0)
			snprintf(setup_err, sizeof(setup_err), "the %s backend could not start the "
				 "run: %s", ri.backend, error_last());
		free(qlog);
	}
out_rm_disk:
	if (o->keep_disk && strcmp(job.backing, "file"))
		keep_tmpfs_disk(&disk, dir);
	if (!o->keep_disk)
		disk_remove(&disk);
	if (disk_fd >= 0)
		close(disk_fd);
out_rm_initrd:
	if (initrd)
		unlink(initrd);
	if (initrd_fd >= 0)
		close(initrd_fd);
out_report:
	if (setup_err[0])
		ri.setup_error = setup_err;
	ret = ri.setup_error ? RUN_SETUP_FAILED : (int)vm.status;
	if (result_write(&ri) < 0) {
		error("run %s: %s: no result.json in '%s'", run_id, run_statuses[ret].name, dir);
		if (ret == RUN_OK)
			ret = RUN_STORE_FAILED;
	} else if (!o->quiet) {
		result_print(&ri);
	}
out:
	if (lock >= 0)
		close(lock);
	free(pid_file);
	free(disk_proc);
	free(initrd_proc);
	free((char *)ri.qemu_version);
	samples_release(&samples);
	vm_result_release(&vm);
	tarball_release(&tb);
	bench_files_release(&bf);
	disk_release(&disk);
	modlist_release(&mods);
	kernel_release(&kernel);
	target_release(&target);
	job_release(&job);
	free(pvh);
	free(tool);
	free(tool_dst);
	free(started);
	free(append);
	free(tsc);
	free(ramcmd);
	free(jobtext);
	free(img);
	free(initrd);
	free(p);
	free(agent);
	free(dir);
	free(run_id);
	return ret;
}
