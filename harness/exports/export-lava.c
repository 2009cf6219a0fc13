/*
 * export-lava.c - kpair export lava: one kpair job as a LAVA job definition
 * and a QEMU device dictionary. The images are the ones `kpair run` boots:
 * the kernel (the PVH vmlinux where the target boots that way), kpair's
 * initramfs (the static agent as /init, the modules in load order,
 * /kpair/job) and a scratch disk made with the host's mkfs, all as file://
 * URLs in the output directory. The kernel command line adds kpair.echo=2,
 * so the agent writes every record to the console as one line too, where a
 * LAVA `monitors:` test turns each sample into a test case with its
 * measurement, and after the done record the kernel counters' deltas a line
 * each, which a second monitor makes test cases of their own.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../guest/record.h"
#include "backends/accel.h"
#include "backends/qemu-args.h"
#include "backends/vm.h"
#include "bench.h"
#include "config.h"
#include "export.h"
#include "image.h"
#include "jfile.h"
#include "job.h"
#include "kernels/kernel.h"
#include "kernels/kneeds.h"
#include "preflight.h"
#include "run-inputs.h"
#include "run.h"
#include "spawn.h"
#include "util.h"
#include "yaml.h"

/* the console line of a record (guest/record.c) and the monitors' patterns on it */
#define MON_START REC_ECHO_PREFIX "\\{\"type\":\"hello\""
#define MON_END REC_ECHO_PREFIX "\\{\"type\":\"done\""
#define MON_SAMPLE REC_ECHO_PREFIX "\\{\"type\":\"sample\",\"seq\":[0-9]+," \
	"\"metric\":\"(?P<test_case_id>[^\"]+)\",\"unit\":\"(?P<units>[^\"]*)\"," \
	"\"value\":(?P<measurement>-?[0-9.]+(e[-+]?[0-9]+)?)\\}"
/* kpair.echo=2: after the done record, the kernel counters' deltas a line each */
#define MON_CTR_START REC_ECHO_COUNTERS
#define MON_CTR_END REC_ECHO_END
#define MON_CTR REC_ECHO_COUNTER "(?P<test_case_id>[^ \\r\\n]+) (?P<measurement>-?[0-9]+)"

/* the scratch disk's PCI slot, after every device of the options: /dev/vda whatever LAVA adds */
#define SCRATCH_ADDR "0x10"

struct lava_export {
	struct job job;
	struct target target;
	struct kernel kernel;
	struct modlist mods;
	struct disk disk;
	char *dir;			/* absolute output directory */
	char *agent, *boot_image;	/* host paths */
	char *kernel_file, *initrd_file;	/* in dir */
	char sha_kernel[65], sha_initrd[65];
	char accel[16], accel_why[256];
	const char *cache;
};

/* a YAML single-quoted scalar: only ' is special in it (doubled) */
/* what LAVA's QEMU command line (split by pexpect, no shell) can carry in -append "..." */
static int cmdline_ok(const struct job *job)
{
	if (strpbrk(job->cmdline, "\"\\'{}"))
		return error("%s: job.cmdline: '%s': quotes, backslashes and braces cannot pass "
			     "through LAVA's QEMU command line", job->file, job->cmdline);
	return 0;
}

/* job, target and kernel as `kpair run` takes them, with the same checks before anything is made */
static int load_job(const struct lava_export_opts *o, struct lava_export *x)
{
	struct wl_disk d;
	const char *kid;
	char why[512];

	if (job_open(&x->job, o->job_path, o->sets, o->nset) < 0 ||
	    target_load(&x->target, x->job.target) < 0)
		return -1;
	/* what the job alone decides first: it needs no kernel to be refused */
	if (x->job.wl->input != WL_INPUT_NONE || x->job.wl->tool || bench_has_files(x->job.wl))
		return error("%s: workload %s needs a host-made %s, which export lava does not "
			     "carry", x->job.file, x->job.wl->name,
			     x->job.wl->tool ? "tool in the initramfs" :
			     bench_has_files(x->job.wl) ? "file in the initramfs" : "input disk");
	if (cmdline_ok(&x->job) < 0)
		return -1;
	kid = o->kernel ? o->kernel : x->target.kernel;
	if (!*kid)
		return error("no --kernel, and target '%s' names no default kernel", x->target.name);
	if (kernel_load(kid, &x->kernel) < 0) {
		char *hint;

		if (kernel_in_store(kid))
			return -1;	/* kernel_load said what is wrong with it */
		hint = kernel_fetch_hint(kid, NULL);
		error("kernel '%s' is not in the store (kpair kernel list; kpair kernel fetch %s)",
		      kid, hint);
		free(hint);
		return -1;
	}
	if (strcmp(x->kernel.arch, x->target.arch))
		return error("kernel '%s' is %s, target '%s' wants %s", x->kernel.id, x->kernel.arch,
			     x->target.name, x->target.arch);
	if (x->target.page_size && (uint64_t)x->kernel.page_size != x->target.page_size)
		return error("kernel '%s' has %ld-byte pages, target '%s' wants %llu", x->kernel.id,
			     x->kernel.page_size, x->target.name,
			     (unsigned long long)x->target.page_size);
	if (disk_check(x->job.fs, x->job.blocksize, x->job.disk_size, x->job.mkfs_options,
		       x->kernel.release, x->kernel.page_size, why, sizeof(why)) < 0)
		return error("%s: disk: %s", x->job.file, why);
	d = (struct wl_disk){ x->job.fs, x->job.blocksize, x->job.disk_size, x->kernel.page_size };
	if (x->job.wl->check && x->job.wl->check(x->job.pval, &d, why, sizeof(why)) < 0)
		return error("%s: params: workload %s: %s", x->job.file, x->job.wl->name, why);
	if (kernel_kneeds_check(&x->kernel, &x->job, why, sizeof(why)) < 0)
		return error("%s", why);
	if (strcmp(x->job.pin, "none"))
		warning("job.pin=%s: a LAVA worker runs QEMU where it likes; not exported",
			x->job.pin);
	if (strcmp(x->job.backing, "file"))
		warning("disk.backing=%s: the LAVA worker keeps the image in its own directory",
			x->job.backing);
	x->agent = xasprintf("%s/%s", kpair_root(), x->target.agent);
	if (!path_exists(x->agent))
		return error("guest agent '%s' is missing (%s)", x->agent, AGENT_HINT);
	return 0;
}

/* kernel, initramfs and scratch disk in x->dir, with their sha256; -1 is a setup failure */
static int make_images(struct lava_export *x)
{
	struct initramfs_spec is = { 0 };
	char why[512], *jobtext = NULL, *img = NULL, *pvh = NULL;
	const char *base;
	int gzip = !strcmp(x->target.initramfs, "gzip"), ret = -1;

	if (kernel_image_check(&x->kernel, why, sizeof(why)) < 0 ||
	    agent_check(x->agent, x->target.arch, why, sizeof(why)) < 0)
		return error("%s", why);
	if (run_resolve_modules(&x->kernel, &x->target, &x->job, &x->mods) < 0)
		return error("module resolution failed for kernel %s", x->kernel.id);
	if (module_files_check(x->kernel.moddir, &x->mods, why, sizeof(why)) < 0)
		return error("%s", why);
	x->boot_image = xstrdup(x->kernel.image);
	if (!strcmp(x->target.boot, "pvh") && kernel_pvh_image(&x->kernel, &pvh) == 0 && pvh) {
		free(x->boot_image);
		x->boot_image = pvh;
	}
	base = strrchr(x->boot_image, '/') ? strrchr(x->boot_image, '/') + 1 : x->boot_image;
	x->kernel_file = xasprintf("%s/%s", x->dir, base);
	if (copy_file(x->boot_image, x->kernel_file) < 0)
		return -1;

	jobtext = run_job_text(&x->job, 0);
	x->initrd_file = xasprintf("%s/initramfs.cpio%s", x->dir, gzip ? ".gz" : "");
	is.agent = x->agent;
	is.moddir = x->kernel.moddir;
	is.mods = &x->mods;
	is.job_text = jobtext;
	is.gzip = gzip;
	if (initramfs_write(x->initrd_file, &is) < 0)
		goto out_remove_images;
	img = xasprintf("%s/scratch.img", x->dir);
	if (disk_create(&x->disk, img, x->job.disk_size, x->job.fs, x->job.blocksize,
			x->job.mkfs_options) < 0)
		goto out_remove_images;
	x->cache = strcmp(x->job.cache, "auto") ? x->job.cache : x->disk.cache;
	/* no sha256 of the disk: a fresh fs, mostly holes, read whole it takes ~10 s a GiB here */
	if (sha256_file(x->kernel_file, x->sha_kernel) < 0 ||
	    sha256_file(x->initrd_file, x->sha_initrd) < 0)
		goto out_remove_images;
	accel_choose(&x->target, x->kernel.image, x->job.accel, x->accel, sizeof(x->accel),
		     x->accel_why, sizeof(x->accel_why));
	ret = 0;
	goto out;
out_remove_images:
	disk_remove(&x->disk);
	unlink(x->initrd_file);
	unlink(x->kernel_file);
out:
	free(img);
	free(jobtext);
	return ret;
}

/* qemu_add_fn onto the device's options list */
static void device_words(void *ctx, const char *opt, const char *val)
{
	if (val)
		yaml_item(ctx, 10, "%s %s", opt, val);
	else
		yaml_item(ctx, 10, "%s", opt);
}

/*
 * The device dictionary: QEMU as kpair's QEMU backend starts it (backends/
 * qemu-args.c, as qemu.c does), with the console on stdio for LAVA and the results port on a
 * file chardev to /dev/null: the agent needs the port, and a null chardev
 * never opens, so the guest's first write to it would block forever.
 */
static char *device_yaml(const struct lava_export *x)
{
	const struct target *t = &x->target;
	struct qemu_machine m = { t, x->accel, job_icount(&x->job), x->job.memory, x->job.cpus,
				  "-display none" };
	struct text y = { 0 };

	text_add(&y, "# kpair export lava: a QEMU device for kpair job '%s' on target %s\n"
		 "# (QEMU as kpair's own backend starts it; %s: %s)\n",
		 x->job.name, t->name, x->accel, x->accel_why);
	text_add(&y, "device_type: qemu\navailable_architectures:\n- ");
	yaml_str(&y, t->arch);
	text_add(&y, "\nconstants:\n"
		 "  kernel-start-message: 'Linux version [0-9]'\n"
		 "  shutdown-message: 'reboot: Power down'\n"
		 "  default-shell-prompt: 'kpair has no shell'\n"
		 "  spawn_maxread: '4092'\n"
		 "  # one attempt each: a retried measurement hides a failed one\n"
		 "  failure_retry: 1\n"
		 "  boot_retry: 1\n"
		 "parameters: {}\n"
		 "actions:\n"
		 "  deploy:\n"
		 "    methods:\n"
		 "      image:\n"
		 "        parameters: {}\n"
		 "  boot:\n"
		 "    connections:\n"
		 "      serial:\n"
		 "    methods:\n"
		 "      qemu:\n"
		 "        parameters:\n"
		 "          command: ");
	yaml_str(&y, t->qemu);
	text_add(&y, "\n          options:\n");
	yaml_item(&y, 10, "-name kpair-%s", x->job.name);
	qemu_args_machine(&m, device_words, &y);
	yaml_item(&y, 10, "-serial stdio");
	qemu_args_results_port(t, "file,id=res,path=/dev/null", device_words, &y);
	if (x->job.wl->host_root)	/* the worker's / read-only: its stress-ng, its tools */
		qemu_args_host_root(t, "/", device_words, &y);
	text_add(&y, "timeouts:\n"
		 "  actions: {}\n"
		 "  connections: {}\n");
	return y.s;
}

/* one deploy image: its label, file, sha256 and the QEMU arguments LAVA adds for it */
static void job_image(struct text *y, const char *label, const char *path, const char *sha,
		      const char *arg)
{
	char *url = file_url(path);

	text_add(y, "      %s:\n        url: ", label);
	yaml_str(y, url);
	free(url);
	if (sha)
		text_add(y, "\n        sha256sum: '%s'", sha);
	text_add(y, "\n        image_arg: ");
	yaml_str(y, arg);
	text_add(y, "\n");
}

/* one entry of a LAVA test's monitors: @name@suffix, its start, end and test case patterns */
static void monitor(struct text *y, const char *name, const char *suffix, const char *start,
		    const char *end, const char *pattern)
{
	text_add(y, "    - name: %s%s\n      start: ", name, suffix);
	yaml_str(y, start);
	text_add(y, "\n      end: ");
	yaml_str(y, end);
	text_add(y, "\n      pattern: ");
	yaml_str(y, pattern);
	text_add(y, "\n");
}

static char *job_yaml(const struct lava_export *x, const struct lava_export_opts *o)
{
	const struct job *j = &x->job;
	unsigned long long boot_s = (j->boot_timeout_ms + 999) / 1000;
	unsigned long long test_s = boot_s + (j->timeout_ms + 999) / 1000;
	struct text y = { 0 };
	char *arg, *p;
	int i;

	text_add(&y, "# kpair export lava: job %s on kernel %s, target %s\n"
		 "# run it without a LAVA server:\n"
		 "#   lava-run --job-id 1 --output-dir OUT --device device.yaml job.yaml\n"
		 "job_name: ", j->name, x->kernel.id, x->target.name);
	arg = xasprintf("kpair %s on %s", j->name, x->kernel.id);
	yaml_str(&y, arg);
	free(arg);
	text_add(&y, "\ndevice_type: qemu\nvisibility: public\npriority: medium\n"
		 "context:\n  arch: ");
	yaml_str(&y, x->target.arch);
	text_add(&y, "\nmetadata:\n  kpair.job: ");
	yaml_str(&y, j->file);
	text_add(&y, "\n  kpair.workload: ");
	yaml_str(&y, j->workload);
	text_add(&y, "\n  kpair.kernel: ");
	yaml_str(&y, x->kernel.id);
	text_add(&y, "\n  kpair.kernel_release: ");
	yaml_str(&y, x->kernel.release);
	text_add(&y, "\n  kpair.target: ");
	yaml_str(&y, x->target.name);
	text_add(&y, "\n  kpair.mkfs: ");
	yaml_str(&y, x->disk.mkfs_cmd);
	text_add(&y, "\n  kpair.sets:\n");
	for (i = 0; i < o->nset; i++) {
		text_add(&y, "  - ");
		yaml_str(&y, o->sets[i]);
		text_add(&y, "\n");
	}
	if (!o->nset)
		text_add(&y, "    []\n");
	/* the whole job within the boot and workload timeouts, plus the deploy's copies */
	text_add(&y, "timeouts:\n  job:\n    seconds: %llu\n  connection:\n    seconds: %llu\n"
		 "actions:\n- deploy:\n    to: tmpfs\n    timeout:\n      minutes: 10\n"
		 "    images:\n", test_s + 600, test_s);
	arg = xasprintf("-kernel {kernel} -append \"console=%s panic=-1 %s %s kpair.echo=2\"",
			x->target.console, x->target.extra_append, j->cmdline);
	job_image(&y, "kernel", x->kernel_file, x->sha_kernel, arg);
	free(arg);
	job_image(&y, "initrd", x->initrd_file, x->sha_initrd, "-initrd {initrd}");
	arg = xasprintf("-drive format=raw,file={scratch},if=none,id=disk0,cache=%s "
			"-device %s,drive=disk0,addr=%s", x->cache, x->target.blk_dev, SCRATCH_ADDR);
	job_image(&y, "scratch", x->disk.path, NULL, arg);
	free(arg);
	text_add(&y, "- boot:\n    method: qemu\n    media: tmpfs\n"
		 "    timeout:\n      seconds: %llu\n", test_s);
	/* a monitor's name is [-_a-zA-Z0-9.]+; job names may also have '+' */
	arg = xasprintf("kpair-%s", j->name);
	for (p = arg; *p; p++)
		if (*p == '+')
			*p = '_';
	text_add(&y, "- test:\n    timeout:\n      seconds: %llu\n    monitors:\n", test_s);
	monitor(&y, arg, "", MON_START, MON_END, MON_SAMPLE);
	/* monitors run one after the other: the counters' lines come after the done record */
	monitor(&y, arg, "-counters", MON_CTR_START, MON_CTR_END, MON_CTR);
	free(arg);
	return y.s;
}

static int write_text(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	int ret = write_file_atomic(path, text, strlen(text));

	free(path);
	return ret;
}

int export_lava(const struct lava_export_opts *o)
{
	struct lava_export x = { 0 };
	char *job = NULL, *dev = NULL;
	int lock = -1, ret = EXPORT_USAGE;

	job_init(&x.job);
	target_init(&x.target);
	kernel_init(&x.kernel);
	modlist_init(&x.mods);
	disk_init(&x.disk);
	if (load_job(o, &x) < 0)
		goto out;
	ret = EXPORT_SETUP_FAILED;
	if (mkdir_p(o->out_dir, 0755) < 0)
		goto out;
	x.dir = realpath(o->out_dir, NULL);
	if (!x.dir) {
		error("cannot resolve '%s': %s", o->out_dir, strerror(errno));
		goto out;
	}
	if ((lock = dir_lock(x.dir)) < 0)
		goto out;
	if (make_images(&x) < 0) {
		error("export lava: no LAVA job written to '%s'", x.dir);
		goto out_unlock;
	}
	job = job_yaml(&x, o);
	dev = device_yaml(&x);
	if (write_text(x.dir, "device.yaml", dev) < 0 || write_text(x.dir, "job.yaml", job) < 0)
		goto out_unlock;
	printf("%s/job.yaml\n%s/device.yaml\n", x.dir, x.dir);
	ret = 0;
out_unlock:
	close(lock);
out:
	free(job);
	free(dev);
	free(x.dir);
	free(x.agent);
	free(x.boot_image);
	free(x.kernel_file);
	free(x.initrd_file);
	disk_release(&x.disk);
	modlist_release(&x.mods);
	kernel_release(&x.kernel);
	target_release(&x.target);
	job_release(&x.job);
	return ret;
}

static int cmd_lava(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "set", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct lava_export_opts o = { 0 };
	char **sets = xcalloc(argc + 1, sizeof(char *));
	int c, ret = EXPORT_USAGE;

	optind = 1;
	while ((c = getopt_long(argc, argv, "k:s:o:", lopts, NULL)) != -1) {
		switch (c) {
		case 'k': o.kernel = optarg; break;
		case 's': sets[o.nset++] = optarg; break;
		case 'o': o.out_dir = optarg; break;
		default:
			error("export lava: unknown option");
			goto out_usage;
		}
	}
	if (optind != argc - 1 || !o.out_dir) {
		error("export lava: expected one job file and -o DIR");
		goto out_usage;
	}
	o.job_path = argv[optind];
	o.sets = sets;
	ret = export_lava(&o);
	goto out;
out_usage:
	export_usage_exit();
out:
	free(sets);
	return ret;
}

const struct exporter exporter_lava = {
	.name = "lava",
	.usage = "kpair export lava JOB [--kernel ID] [--set S.K=V]... -o DIR\n"
		 "         DIR/job.yaml, DIR/device.yaml and the images they name (file:// URLs):\n"
		 "         lava-run --job-id 1 --output-dir OUT --device DIR/device.yaml DIR/job.yaml\n",
	.cmd = cmd_lava,
};
