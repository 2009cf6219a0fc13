/*
 * agent.c - kpair's guest agent, PID 1 of the initramfs. It mounts the API
 * filesystems, loads the kernel modules the harness packed (in dependency
 * order), opens the org.kpair.results virtio-serial port, mounts the scratch
 * disk, runs one workload from the table and streams JSON records, then
 * powers the guest off. It never exits: PID 1 exiting would panic the kernel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "cycles.h"
#include "record.h"
#include "workload.h"

#define PORT_NAME "org.kpair.results"
#define SYMBOLS_PORT "org.kpair.symbols"
#define JOB_FILE "/kpair/job"
#define MODULES_FILE "/kpair/modules"
#define MNT "/mnt"
#define MODULE_INIT_COMPRESSED_FILE 4

struct agent_job {
	char workload[64];
	char fs[32];
	char dev[64];
	char mount_opts[256];
	char input[64];
	uint64_t seed;
	uint64_t ram_size;		/* disk.backing=ram: /dev/ram0's size, 0 otherwise */
	uint64_t (*ram_ext)[2];		/* the image's data extents: offset, length */
	int ram_next;
	struct wl_ctx ctx;
	const struct workload *wl;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("kpair-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double uptime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noreturn)) void power_off(void)
{
	rec_echo_end();	/* after every record: LAVA's monitor may end the run's console here */
	sync();
#if defined(__x86_64__) || defined(__i386__)
	/* without ACPI an x86 power-off halts forever: reboot, which -no-reboot turns into an exit */
	if (access("/sys/firmware/acpi", F_OK) < 0)
		reboot(RB_AUTOBOOT);
#endif
	reboot(RB_POWER_OFF);
	/* no ACPI: with -no-reboot a reboot ends QEMU too */
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static void mount_api_fs(void)
{
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	if (mount("proc", "/proc", "proc", 0, NULL) < 0)
		say("mount /proc: %s", strerror(errno));
	if (mount("sysfs", "/sys", "sysfs", 0, NULL) < 0)
		say("mount /sys: %s", strerror(errno));
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) < 0 && errno != EBUSY)
		say("mount /dev: %s", strerror(errno));
}

/* load each module named in MODULES_FILE, one path a line, in that order */
static int load_modules(char *why, size_t len)
{
	char line[512];
	FILE *f;
	int ret = 0;

	f = fopen(MODULES_FILE, "r");
	if (!f)
		return 0;	/* a kernel with everything built in */
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");
		const char *args = "";
		int flags = 0, fd;
		char *sp;

		line[n] = '\0';
		if (!n)
			continue;
		sp = strchr(line, ' ');	/* "path [parameters]" */
		if (sp) {
			*sp = '\0';
			args = sp + 1;
			n = sp - line;
		}
		if (n > 3 && !strcmp(line + n - 3, ".xz"))
			flags |= MODULE_INIT_COMPRESSED_FILE;
		fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(why, len, "cannot open module '%s': %s", line, strerror(errno));
			ret = -1;
			break;
		}
		if (syscall(SYS_finit_module, fd, args, flags) < 0 && errno != EEXIST) {
			snprintf(why, len, "cannot load module '%s': %s", line, strerror(errno));
			close(fd);
			ret = -1;
			break;
		}
		close(fd);
	}
	fclose(f);
	return ret;
}

/* the /dev node of the virtio-serial port named PORT_NAME, waiting for its probe */
static int open_port(const char *port, int tries_max)
{
	char path[300], name[128], dev[300];
	int tries, fd;

	for (tries = 0; tries < tries_max; tries++) {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *de;

		while (d && (de = readdir(d))) {
			FILE *f;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", de->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (!fgets(name, sizeof(name), f))
				name[0] = '\0';
			fclose(f);
			name[strcspn(name, "\n")] = '\0';
			if (strcmp(name, port))
				continue;
			snprintf(dev, sizeof(dev), "/dev/%s", de->d_name);
			fd = open(dev, O_WRONLY | O_CLOEXEC);
			if (fd >= 0) {
				closedir(d);
				return fd;
			}
		}
		if (d)
			closedir(d);
		if (tries + 1 < tries_max)
			usleep(10000);
	}
	return -1;
}

/*
 * kpair.echo=1 on the kernel command line: every record on the console too (LAVA reads that);
 * kpair.echo=2: the counters a line each as well (kpair export lava's monitor of them)
 */
static int echo_wanted(void)
{
	char buf[4096], *tok, *save = NULL;
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
		if (!strcmp(tok, "kpair.echo=1"))
			return 1;
		else if (!strcmp(tok, "kpair.echo=2"))
			return 2;
	return 0;
}

static int wait_for(const char *path, int ms)
{
	struct stat st;

	for (; ms > 0; ms -= 10) {
		if (!stat(path, &st))
			return 0;
		usleep(10000);
	}
	return stat(path, &st);
}

static int read_job(struct agent_job *job)
{
	static char line[WL_PARAM_TEXT_MAX + 512];
	uint64_t seen = 0;
	FILE *f;
	int i, ret = 0;

	f = fopen(JOB_FILE, "r");
	if (!f)
		return rec_error("job", errno, "cannot open %s: %s", JOB_FILE, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		const char *why;
		char *key = line, *val;

		line[strcspn(line, "\n")] = '\0';
		if (!eq)
			continue;
		*eq = '\0';
		val = eq + 1;
		if (!strcmp(key, "workload")) {
			snprintf(job->workload, sizeof(job->workload), "%s", val);
			job->wl = workload_find(val);
			if (!job->wl) {
				ret = rec_error("job", EINVAL, "unknown workload '%s'", val);
				break;
			}
		} else if (!strcmp(key, "fs")) {
			snprintf(job->fs, sizeof(job->fs), "%s", val);
		} else if (!strcmp(key, "dev")) {
			snprintf(job->dev, sizeof(job->dev), "%s", val);
		} else if (!strcmp(key, "mount_opts")) {
			snprintf(job->mount_opts, sizeof(job->mount_opts), "%s", val);
		} else if (!strcmp(key, "input")) {
			snprintf(job->input, sizeof(job->input), "%s", val);
		} else if (!strcmp(key, "seed")) {
			job->seed = strtoull(val, NULL, 0);
		} else if (!strcmp(key, "ram_size")) {
			job->ram_size = strtoull(val, NULL, 0);
		} else if (!strcmp(key, "ram_extent")) {
			uint64_t (*e)[2] = realloc(job->ram_ext, (job->ram_next + 1) * sizeof(*e));
			char *plus;

			if (!e) {
				ret = rec_error("job", ENOMEM, "too many ram_extent lines");
				break;
			}
			job->ram_ext = e;
			e[job->ram_next][0] = strtoull(val, &plus, 0);
			e[job->ram_next][1] = *plus == '+' ? strtoull(plus + 1, NULL, 0) : 0;
			job->ram_next++;
		} else if (!strncmp(key, "param.", 6) && job->wl) {
			i = workload_param_index(job->wl, key + 6);
			if (i < 0) {
				ret = rec_error("job", EINVAL, "workload '%s' has no parameter '%s'",
						job->wl->name, key + 6);
				break;
			}
			if (wl_param_check(&job->wl->params[i], val, &job->ctx.val[i], &why) < 0) {
				ret = rec_error("job", EINVAL, "param %s=%.200s: %s", key + 6, val, why);
				break;
			}
			job->ctx.str[i] = strdup(val);
			seen |= 1ULL << i;
		}
	}
	fclose(f);
	if (ret < 0)
		return ret;
	if (!job->wl)
		return rec_error("job", EINVAL, "%s names no workload", JOB_FILE);
	for (i = 0; job->wl->params[i].name; i++) {
		const char *why;

		if (seen & (1ULL << i))
			continue;
		if (wl_param_check(&job->wl->params[i], job->wl->params[i].def,
				   &job->ctx.val[i], &why) < 0)
			return rec_error("job", EINVAL, "default of %s: %s",
					 job->wl->params[i].name, why);
		job->ctx.str[i] = job->wl->params[i].def;
	}
	return 0;
}

/*
 * disk.backing=ram: copy the image's data extents from the virtio disk into
 * /dev/ram0 (brd, loaded with one disk of the image's size) and make that the
 * scratch device; the rest of the RAM disk reads as zeros, as the image's holes do
 */
#define RAM_DEV "/dev/ram0"
static int ram_fill(struct agent_job *job)
{
	static char buf[1 << 20];
	int in = -1, out = -1, i, ret = -1;
	double t0 = wl_now();
	uint64_t done = 0;

	if (wait_for(job->dev, 5000) < 0)
		return rec_error("ram", errno, "no scratch device '%s'", job->dev);
	if (wait_for(RAM_DEV, 5000) < 0)
		return rec_error("ram", errno, "disk.backing=ram: no %s: the kernel has no brd "
				 "(CONFIG_BLK_DEV_RAM)", RAM_DEV);
	in = open(job->dev, O_RDONLY | O_CLOEXEC);
	out = open(RAM_DEV, O_WRONLY | O_CLOEXEC);
	if (in < 0 || out < 0) {
		rec_error("ram", errno, "cannot open %s: %s", in < 0 ? job->dev : RAM_DEV,
			  strerror(errno));
		goto out_close;
	}
	for (i = 0; i < job->ram_next; i++) {
		uint64_t off = job->ram_ext[i][0], left = job->ram_ext[i][1];

		if (off + left > job->ram_size) {
			rec_error("ram", EINVAL, "extent %llu+%llu beyond the %llu-byte disk",
				  (unsigned long long)off, (unsigned long long)left,
				  (unsigned long long)job->ram_size);
			goto out_close;
		}
		while (left) {
			size_t n = left < sizeof(buf) ? left : sizeof(buf);
			ssize_t r = pread(in, buf, n, (off_t)off);

			if (r <= 0 || pwrite(out, buf, r, (off_t)off) != r) {
				rec_error("ram", r < 0 || errno ? errno : EIO,
					  "copy of %s at %llu into %s: %s", job->dev,
					  (unsigned long long)off, RAM_DEV,
					  r == 0 ? "end of device" : strerror(errno));
				goto out_close;
			}
			off += r;
			left -= r;
			done += r;
		}
	}
	if (fsync(out) < 0) {
		rec_error("ram", errno, "fsync %s: %s", RAM_DEV, strerror(errno));
		goto out_close;
	}
	say("%llu bytes in %d extents copied into %s in %.3f s", (unsigned long long)done,
	    job->ram_next, RAM_DEV, wl_now() - t0);
	snprintf(job->dev, sizeof(job->dev), "%s", RAM_DEV);
	ret = 0;
out_close:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

/*
 * A profiled run (the host gave the port org.kpair.symbols): the kernel's text symbols
 * from /proc/kallsyms, as they are at run time (KASLR and module addresses included),
 * for the host to name the profile's addresses. Best effort: the host says when none came.
 */
static void send_symbols(void)
{
	int fd = open_port(SYMBOLS_PORT, 1);
	char line[512];
	FILE *in, *out;

	if (fd < 0)
		return;
	out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		return;
	}
	in = fopen("/proc/kallsyms", "r");	/* none without CONFIG_KALLSYMS: System.map then */
	while (in && fgets(line, sizeof(line), in)) {
		char *t = strchr(line, ' ');

		if (t && (t[1] == 't' || t[1] == 'T') && t[2] == ' ')
			fputs(line, out);
	}
	if (in)
		fclose(in);
	/* where each module sits: its functions' bucket when the symbols do not name them */
	fputs("# modules\n", out);
	in = fopen("/proc/modules", "r");
	while (in && fgets(line, sizeof(line), in))
		fputs(line, out);
	if (in)
		fclose(in);
	fclose(out);
}

static int run_job(struct agent_job *job)
{
	const struct workload *wl = job->wl;
	struct wl_ctx *ctx = &job->ctx;
	struct counters before = { 0 }, after = { 0 };
	double t0 = 0, t1 = 0;
	int mounted = 0, ret = -1;

	ctx->mnt = MNT;
	ctx->dev = job->dev;
	ctx->fs = job->fs;
	ctx->mount_opts = job->mount_opts;
	ctx->input = job->input;
	ctx->seed = job->seed;
	if (job->input[0] && wait_for(job->input, 5000) < 0)
		return rec_error("input", errno, "no input device '%s'", job->input);
	if (job->ram_size && ram_fill(job) < 0)
		return -1;
	if (job->fs[0] && strcmp(job->fs, "none")) {
		mkdir(MNT, 0755);
		if (wait_for(job->dev, 5000) < 0)
			return rec_error("mount", errno, "no scratch device '%s'", job->dev);
		if (mount(job->dev, MNT, job->fs, 0, job->mount_opts) < 0)
			return rec_error("mount", errno, "mount -t %s -o '%s' %s: %s", job->fs,
					 job->mount_opts, job->dev, strerror(errno));
		mounted = 1;
	}
	if (wl->setup && wl->setup(ctx) < 0)
		goto out_umount;
	counters_snapshot(&before, job->dev);	/* outside the timed region */
	t0 = wl_now();
	ret = wl->run(ctx);
	t1 = wl_now();
	counters_snapshot(&after, job->dev);
	if (wl->teardown)
		wl->teardown(ctx);
out_umount:
	if (mounted && umount(MNT) < 0 && !ret)
		ret = rec_error("umount", errno, "umount %s: %s", MNT, strerror(errno));
	if (!ret) {
		sync();
		if (counters_send(&before, &after) < 0)
			say("the kernel counters could not be sent");
		send_symbols();
		ret = rec_done(uptime(), t1 - t0, cycles_since_reset());
	}
	counters_release(&before);
	counters_release(&after);
	return ret;
}

int main(void)
{
	static struct agent_job job;
	double init_uptime = uptime(), modules_s;	/* the kernel's uptime as it ran init */
	char why[600];
	int fd, echo;

	cycles_start();
	mount_api_fs();
	modules_s = uptime();
	if (load_modules(why, sizeof(why)) < 0) {
		/* no channel yet: the harness sees this line on the console */
		say("%s", why);
		power_off();
	}
	modules_s = uptime() - modules_s;	/* finit_module of each: the harness reports it */
	fd = open_port(PORT_NAME, 500);
	if (fd < 0) {
		say("no virtio-serial port named %s", PORT_NAME);
		power_off();
	}
	rec_set_fd(fd);
	echo = echo_wanted();
	if (echo)	/* /dev/console, which the kernel gave init */
		rec_set_echo(STDOUT_FILENO, echo == 2);
	if (read_job(&job) < 0)
		power_off();
	rec_hello(job.workload, uptime(), init_uptime, modules_s, sysconf(_SC_PAGESIZE));
	/* one line on the console, so even a quiet kernel's console shows how far the guest got */
	say("%s started at %.3f s", job.workload, uptime());
	run_job(&job);
	close(fd);
	power_off();
}
