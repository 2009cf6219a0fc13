/* run.c - one run: config -> kernel -> image -> boot -> channel/samples -> report */
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
#include "job.h"
#include "kernels/kernel.h"
#include "kernels/kneeds.h"
#include "preflight.h"
#include "profilers/profiler.h"
#include "result.h"
#include "run-inputs.h"
#include "run.h"
#include "samples.h"
#include "spawn.h"
#include "tarball.h"
#include "util.h"

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

static char *make_run_id(const struct job *job)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	return xasprintf("%s-%s-%d", job->name, stamp, (int)getpid());
}

/* one run's state, from the job file to result.json */
struct run {
	const struct run_opts *o;
	const struct backend *be;
	struct job job;
	struct target target;
	struct kernel kernel;
	struct modlist mods;
	struct disk disk;
	struct samples samples;
	struct vm_result vm;
	struct channel ch;
	struct run_info ri;
	struct initramfs_spec is;
	struct vm_spec spec;
	struct tarball tb;
	struct bench_files bf;
	char accel[16], accel_why[256];
	char setup_err[512];		/* why the run could not be done: in result.json */
	char *run_id, *dir, *agent, *started;
	char *img, *jobtext, *ramcmd, *tool, *tool_dst;
	char *initrd, *initrd_proc, *disk_proc;
	char *tsc, *append, *pvh, *console_log, *qemu_log, *pid_file;
	char *plugin, *symbols, *profile_err;
	const struct profiler *profiler;
	int kernel_broken, disk_made, lock, disk_fd, initrd_fd;
	double t0;
};

static void run_init(struct run *r, const struct run_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->be = backend_find(o->backend);
	r->profiler = o->profile ? profiler_find(o->profile) : NULL;
	job_init(&r->job);
	target_init(&r->target);
	kernel_init(&r->kernel);
	modlist_init(&r->mods);
	disk_init(&r->disk);
	vm_result_init(&r->vm);
	tarball_init(&r->tb);
	bench_files_init(&r->bf);
	r->samples.fd = -1;
	r->ri.pinned_cpu = -1;
	r->ri.cache_drop_s = -1;
	r->lock = r->disk_fd = r->initrd_fd = -1;
	r->started = utc_stamp();
	r->t0 = mono_now();
}

static void run_release(struct run *r)
{
	if (r->lock >= 0)
		close(r->lock);
	free((char *)r->ri.qemu_version);
	samples_release(&r->samples);
	vm_result_release(&r->vm);
	tarball_release(&r->tb);
	bench_files_release(&r->bf);
	disk_release(&r->disk);
	modlist_release(&r->mods);
	kernel_release(&r->kernel);
	target_release(&r->target);
	job_release(&r->job);
	free(r->plugin);
	free(r->symbols);
	free(r->profile_err);
	free(r->pid_file);
	free(r->qemu_log);
	free(r->console_log);
	free(r->pvh);
	free(r->append);
	free(r->tsc);
	free(r->disk_proc);
	free(r->initrd_proc);
	free(r->initrd);
	free(r->tool_dst);
	free(r->tool);
	free(r->ramcmd);
	free(r->jobtext);
	free(r->img);
	free(r->started);
	free(r->agent);
	free(r->dir);
	free(r->run_id);
}

/* the run cannot be done: why, for result.json; returns -1 */
static int setup_failed(struct run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->setup_err, sizeof(r->setup_err), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The job, its target and kernel, the agent and the run directory: 0, -1 when there is
 * nothing to run (an error said why), RUN_SETUP_FAILED when the directory is not ours.
 */
static int run_load(struct run *r)
{
	const struct run_opts *o = r->o;
	const char *kid;

	if (job_open(&r->job, o->job_path, o->sets, o->nset) < 0 ||
	    target_load(&r->target, r->job.target) < 0)
		return -1;
	kid = o->kernel ? o->kernel : r->target.kernel;
	if (!*kid)
		return error("no --kernel, and target '%s' names no default kernel", r->target.name);
	if (!o->kernel && !kernel_in_store(kid)) {	/* the target's default, fetched as make kernel does */
		char *spec = xasprintf("debian:%s", kid);
		int got;

		info("run: target '%s''s default kernel %s is not in the store: fetching it",
		     r->target.name, kid);
		got = kernel_fetch(spec, &r->kernel);
		free(spec);
		if (got < 0)
			return -1;
		kernel_release(&r->kernel);
		kernel_init(&r->kernel);
	}
	if (kernel_load(kid, &r->kernel) < 0) {
		if (!kernel_in_store(kid)) {
			char *spec = kernel_fetch_hint(kid, r->target.kernel);

			error("kernel '%s' is not in the store (kpair kernel list; kpair kernel fetch "
			      "%s)", kid, spec);
			free(spec);
			return -1;
		}
		/* in the store but unusable (image gone, kernel.json broken): recorded */
		setup_failed(r, "%s", error_last());
		r->kernel_broken = 1;
	}
	if (!r->kernel_broken && strcmp(r->kernel.arch, r->target.arch))
		return error("kernel '%s' is %s, target '%s' wants %s", r->kernel.id,
			     r->kernel.arch, r->target.name, r->target.arch);
	if (!r->kernel_broken && r->target.page_size &&
	    (uint64_t)r->kernel.page_size != r->target.page_size)
		return error("kernel '%s' has %ld-byte pages, target '%s' wants %llu", r->kernel.id,
			     r->kernel.page_size, r->target.name,
			     (unsigned long long)r->target.page_size);
	if (!r->kernel_broken && check_job(&r->job, &r->kernel) < 0)
		return -1;
	r->agent = xasprintf("%s/%s", kpair_root(), r->target.agent);
	if (!path_exists(r->agent))
		return error("guest agent '%s' is missing (%s)", r->agent, AGENT_HINT);
	r->run_id = make_run_id(&r->job);
	r->dir = o->out_dir ? xstrdup(o->out_dir) :
		xasprintf("%s/results/%s", kpair_root(), r->run_id);
	if (mkdir_p(r->dir, 0755) < 0 || (r->lock = dir_lock(r->dir)) < 0)
		return RUN_SETUP_FAILED;	/* nothing written: the directory is not ours */
	r->ri.run_id = r->run_id;
	r->ri.dir = r->dir;
	r->ri.started = r->started;
	r->ri.job = &r->job;
	r->ri.target = &r->target;
	r->ri.kernel = &r->kernel;
	r->ri.disk = &r->disk;
	r->ri.mods = &r->mods;
	r->ri.vm = &r->vm;
	/* compressed or not: whichever the target's boot path measured faster */
	r->ri.initramfs_gzip = !strcmp(o->initramfs ? o->initramfs : r->target.initramfs, "gzip");
	return 0;
}

/* what the guest needs besides the agent: modules, the input tarball, a tool, user files */
static int run_prepare_files(struct run *r)
{
	struct job *job = &r->job;

	if (r->kernel_broken ||
	    kernel_image_check(&r->kernel, r->setup_err, sizeof(r->setup_err)) < 0 ||
	    kernel_kneeds_check(&r->kernel, job, r->setup_err, sizeof(r->setup_err)) < 0 ||
	    agent_check(r->agent, r->target.arch, r->setup_err, sizeof(r->setup_err)) < 0)
		return -1;
	if (run_resolve_modules(&r->kernel, &r->target, job, &r->mods) < 0)
		return setup_failed(r, "module resolution failed for kernel %s: %s", r->kernel.id,
				    error_last());
	if (module_files_check(r->kernel.moddir, &r->mods, r->setup_err,
			       sizeof(r->setup_err)) < 0)
		return -1;
	if (job->wl->input == WL_INPUT_TARBALL && input_tarball(job, r->dir, &r->tb) < 0)
		return setup_failed(r, "cannot make the input tarball");
	if (job->wl->tool && !(r->tool = tool_path(job->wl->tool, r->target.arch, r->dir)))
		return setup_failed(r, "cannot build %s for %s", job->wl->tool, r->target.arch);
	if (r->tool) {	/* the guest runs it as /kpair/tools/<tool> */
		r->tool_dst = xasprintf("kpair/tools/%s", job->wl->tool);
		r->is.extra[r->is.nextra++] = (struct initramfs_file){ NULL, "kpair/tools", 0755 };
		r->is.extra[r->is.nextra++] = (struct initramfs_file){ r->tool, r->tool_dst, 0755 };
	}
	if (bench_files_add(&r->bf, job, &r->is, r->dir) < 0)	/* the user's job file or program */
		return setup_failed(r, "%s", error_last());
	if (r->o->profile && !(r->be->caps & BACKEND_PLUGINS))
		return setup_failed(r, "profile: the %s backend cannot load a QEMU plugin (a "
				    "profiled run boots on the qemu backend)", r->be->name);
	if (job->wl->host_root && !(r->be->caps & BACKEND_HOST_ROOT))
		return setup_failed(r, "workload %s shares the host's / over virtio-9p: the %s "
				    "backend cannot", job->wl->name, r->be->name);
	return 0;
}

/* the scratch disk and the initramfs, both opened for QEMU and unlinked when not kept */
static int run_prepare_images(struct run *r)
{
	struct job *job = &r->job;
	int gzip = r->ri.initramfs_gzip;
	struct stat st;

	if (strcmp(job->backing, "file"))	/* tmpfs, and ram's source image */
		r->img = xasprintf("/dev/shm/kpair-%s-scratch.img", r->run_id);
	else
		r->img = xasprintf("%s/scratch.img", r->dir);
	if (disk_create(&r->disk, r->img, job->disk_size, job->fs, job->blocksize,
			job->mkfs_options) < 0)
		return setup_failed(r, "cannot make the %s scratch disk: %s", job->fs,
				    error_last());
	r->disk_made = 1;
	r->jobtext = run_job_text(job, r->tb.path != NULL);
	r->ramcmd = xstrdup("");
	if (!strcmp(job->backing, "ram") &&
	    ram_disk_prepare(job, &r->disk, &r->mods, &r->jobtext, &r->ramcmd, r->setup_err,
			     sizeof(r->setup_err)) < 0)
		return -1;
	/*
	 * Unless it is to be kept, the image is unlinked now and QEMU opens it
	 * through our descriptor: whatever kills kpair, no image is left behind.
	 */
	if (!r->o->keep_disk && (r->disk_fd = open(r->disk.path, O_RDWR | O_CLOEXEC)) >= 0 &&
	    unlink(r->disk.path) == 0)
		r->disk_proc = xasprintf("/proc/%d/fd/%d", (int)getpid(), r->disk_fd);
	r->initrd = xasprintf("%s/initramfs.cpio%s", r->dir, gzip ? ".gz" : "");
	r->is.agent = r->agent;
	r->is.moddir = r->kernel.moddir;
	r->is.mods = &r->mods;
	r->is.job_text = r->jobtext;
	r->is.gzip = gzip;
	if (initramfs_write(r->initrd, &r->is) < 0)
		return setup_failed(r, "%s", error_last());
	if (!stat(r->initrd, &st))
		r->ri.initramfs_bytes = st.st_size;
	/* QEMU reads it through our descriptor: nothing is left if kpair is killed */
	if ((r->initrd_fd = open(r->initrd, O_RDONLY | O_CLOEXEC)) >= 0 && unlink(r->initrd) == 0)
		r->initrd_proc = xasprintf("/proc/%d/fd/%d", (int)getpid(), r->initrd_fd);
	return 0;
}

/* samples.jsonl, the guest's files and images, the accelerator, the host's cache */
static int run_prepare(struct run *r)
{
	char *path = xasprintf("%s/samples.jsonl", r->dir);
	int bad = samples_open(&r->samples, path) < 0;

	free(path);
	if (bad)
		return setup_failed(r, "%s", error_last());
	r->ri.samples = &r->samples;
	r->ri.qemu_version = qemu_version(r->target.qemu);
	if (r->o->on_phase)
		r->o->on_phase(r->o->phase_user, "prepare");
	if (run_prepare_files(r) < 0 || run_prepare_images(r) < 0)
		return -1;
	accel_choose(&r->target, r->kernel.image, r->job.accel, r->accel, sizeof(r->accel),
		     r->accel_why, sizeof(r->accel_why));
	r->ri.accel = r->accel;
	r->ri.accel_why = r->accel_why;
	r->ri.prepare_s = mono_now() - r->t0;
	/* the host's page cache as the job asks: dropped, so no run inherits another's */
	if (!strcmp(r->job.host_cache, "drop")) {
		double t1 = mono_now();

		if (host_cache_drop() < 0)
			return setup_failed(r, "job.host_cache=drop: %s", error_last());
		r->ri.cache_drop_s = mono_now() - t1;
	}
	return 0;
}

/* the guest's boot: its kernel command line, the vm_spec; -1 when the run cannot start */
static int run_spec(struct run *r)
{
	const struct run_opts *o = r->o;
	struct vm_spec *spec = &r->spec;
	struct job *job = &r->job;

	r->tsc = tsc_append(&r->target, r->accel, job_icount(job),
			    !r->be->same_host || r->be->same_host(o->dest), job->cmdline);
	/* a profiled run: link-time addresses, so a System.map names them too */
	r->append = xasprintf("console=%s panic=-1 %s %s%s%s%s", r->target.console,
			      r->target.extra_append, job->cmdline, r->ramcmd, r->tsc,
			      r->profiler ? " nokaslr" : "");
	spec->target = &r->target;
	spec->name = r->run_id;
	spec->kernel = r->kernel.image;
	if (!strcmp(r->target.boot, "pvh") && kernel_pvh_image(&r->kernel, &r->pvh) == 0 && r->pvh)
		spec->kernel = r->pvh;
	r->ri.boot_image = spec->kernel;
	spec->initrd = r->initrd_proc ? r->initrd_proc : r->initrd;
	spec->append = r->append;
	spec->accel = r->accel;
	spec->memory = job->memory;
	spec->cpus = job->cpus;
	spec->disks[0].path = r->disk_proc ? r->disk_proc : r->disk.path;
	if (strcmp(job->cache, "auto"))
		r->disk.cache = job->cache;
	spec->disks[0].cache = r->disk.cache;
	spec->disks[0].readonly = !strcmp(job->backing, "ram");	/* only copied from */
	spec->icount = job_icount(job);
	spec->host_root = job->wl->host_root ? "/" : NULL;
	spec->cpu = job_pin_cpu(job);
	r->ri.pinned_cpu = spec->cpu;
	spec->io_cpu = job_pin_io_cpu(job);
	spec->ndisks = 1;
	if (r->tb.path) {
		spec->disks[1].path = r->tb.path;
		spec->disks[1].cache = disk_cache_mode(r->tb.path);
		spec->disks[1].readonly = 1;
		spec->ndisks = 2;
	}
	r->console_log = xasprintf("%s/console.log", r->dir);
	spec->console_log = r->console_log;
	r->qemu_log = xasprintf("%s/qemu.log", r->dir);
	spec->qemu_log = r->qemu_log;
	r->pid_file = xasprintf("%s/qemu.pid", r->dir);
	spec->pid_file = r->pid_file;
	spec->boot_timeout = job->boot_timeout_ms / 1000.0;
	spec->workload_timeout = job->timeout_ms / 1000.0;
	channel_init(&r->ch, samples_record, &r->samples);
	spec->on_phase = o->on_phase;
	spec->phase_user = o->phase_user;
	if (o->on_phase)
		o->on_phase(o->phase_user, "boot");
	info("run %s: booting %s (%s) with workload %s on %s", r->run_id, r->kernel.id, r->accel,
	     job->workload, job->fs);
	if (r->profiler) {
		if (r->profiler->prepare(&r->target, r->dir, &r->plugin, &r->symbols) < 0)
			return setup_failed(r, "%s", error_last());
		spec->plugin = r->plugin;
		spec->symbols = r->symbols;
	}
	spec->dest = o->dest;
	spec->remote = o->remote;
	spec->earlier = o->earlier;
	r->ri.dest = o->dest;
	r->ri.backend = r->be->name;
	return 0;
}

/* the guest's boot through the backend */
static void run_boot(struct run *r)
{
	if (run_spec(r) == 0 && r->be->run(&r->spec, &r->ch, &r->vm) < 0)
		setup_failed(r, "the %s backend could not start the run: %s", r->ri.backend,
			     error_last());
}

/* the scratch disk and the initramfs gone (a kept disk moved into the run directory) */
static void run_clean_images(struct run *r)
{
	if (r->disk_made && r->o->keep_disk && strcmp(r->job.backing, "file"))
		keep_tmpfs_disk(&r->disk, r->dir);
	if (r->disk_made && !r->o->keep_disk)
		disk_remove(&r->disk);
	if (r->disk_fd >= 0)
		close(r->disk_fd);
	if (r->initrd)
		unlink(r->initrd);
	if (r->initrd_fd >= 0)
		close(r->initrd_fd);
}

/* result.json and the summary; the run's status */
static int run_record(struct run *r)
{
	int ret;

	if (r->setup_err[0])
		r->ri.setup_error = r->setup_err;
	if (r->profiler) {	/* the profile, or why there is none: the run stands either way */
		r->ri.profile = r->profiler->name;
		if (r->ri.setup_error || r->vm.status != RUN_OK)
			r->profile_err = xstrdup("the profiled run did not complete");
		else if (r->profiler->collect(r->dir, r->kernel.dir) < 0)
			r->profile_err = xstrdup(error_last());
		r->ri.profile_error = r->profile_err;
	}
	ret = r->ri.setup_error ? RUN_SETUP_FAILED : (int)r->vm.status;
	if (result_write(&r->ri) < 0) {
		error("run %s: %s: no result.json in '%s'", r->run_id, run_statuses[ret].name,
		      r->dir);
		if (ret == RUN_OK)
			ret = RUN_STORE_FAILED;
	} else if (r->o->brief) {
		if (ret != RUN_OK)	/* the reason, not the console: that is in result.json */
			printf("run %s: %s: %s\n", r->run_id, run_statuses[ret].name,
			       r->ri.setup_error ? r->ri.setup_error : r->vm.reason);
	} else if (!r->o->quiet) {
		result_print(&r->ri);
		if (r->profiler && ret == RUN_OK)
			profile_print_top(r->dir, r->ri.profile_error, 10);
	}
	return ret;
}

int run_one(const struct run_opts *o)
{
	struct run r;
	int ret;

	run_init(&r, o);
	ret = run_load(&r);
	if (!ret) {
		if (run_prepare(&r) == 0)
			run_boot(&r);
		run_clean_images(&r);
		ret = run_record(&r);
	}
	run_release(&r);
	return ret;
}

int run_many(const struct run_opts *o, int n, int *status)
{
	struct run *r = xcalloc(n, sizeof(*r));
	const struct vm_spec **spec = xcalloc(n, sizeof(*spec));
	struct channel **ch = xcalloc(n, sizeof(*ch));
	struct vm_result **res = xcalloc(n, sizeof(*res));
	int i, m = 0;

	for (i = 0; i < n; i++) {
		run_init(&r[i], &o[i]);
		status[i] = run_load(&r[i]);
		if (status[i] || run_prepare(&r[i]) < 0 || run_spec(&r[i]) < 0)
			continue;
		spec[m] = &r[i].spec;
		ch[m] = &r[i].ch;
		res[m++] = &r[i].vm;
	}
	if (m > 1 && r[0].be->run_many) {
		r[0].be->run_many(spec, ch, res, m);
	} else {
		for (i = 0; i < n; i++)
			if (!status[i] && !r[i].setup_err[0] &&
			    r[i].be->run(&r[i].spec, &r[i].ch, &r[i].vm) < 0)
				setup_failed(&r[i], "the %s backend could not start the run: %s",
					     r[i].ri.backend, error_last());
	}
	for (i = 0; i < n; i++) {
		char *dir = NULL;

		if (status[i]) {
			run_release(&r[i]);
			continue;
		}
		run_clean_images(&r[i]);
		if (r[i].vm.not_started) {	/* nothing of it ran: no result, no directory */
			dir = xstrdup(r[i].dir);
			status[i] = RUN_NOT_STARTED;
		} else {
			status[i] = run_record(&r[i]);
		}
		run_release(&r[i]);
		if (dir)
			rm_rf(dir);
		free(dir);
	}
	free(res);
	free(ch);
	free(spec);
	free(r);
	return 0;
}
