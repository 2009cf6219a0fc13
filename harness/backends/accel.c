/* accel.c - KVM or TCG for a target (a probe boot, cached per host kernel), QEMU's version */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "backends/accel.h"
#include "backends/vm.h"
#include "spawn.h"
#include "util.h"

/* "7.2.22 (Debian ...)": spawned once per QEMU binary, then kept in images/.version-<binary> */
char *qemu_version(const char *qemu)
{
	const char *argv[] = { qemu, "--version", NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	char *bin = path_lookup(qemu), *stamp, *v;
	const char *base = strrchr(bin, '/');

	stamp = xasprintf("%s/images/.version-%s", kpair_root(), base ? base + 1 : bin);
	v = stamp_get(stamp, bin);
	if (!v && spawn_run(argv, 30000, &r) == 0 && !r.exit_code) {
		const char *p = strstr(r.out, "version ");

		p = p ? p + 8 : r.out;
		v = xasprintf("%.*s", (int)strcspn(p, "\n"), p);
		stamp_put(stamp, bin, v);
	}
	spawn_result_release(&r);
	free(stamp);
	free(bin);
	return v ? v : xstrdup("unknown");
}

/*
 * Boot @kernel under KVM with no root and no init: a working KVM gets to the
 * "unable to mount root" panic in a second or two and, with panic=-1 and
 * -no-reboot, QEMU exits. The host's PVM KVM hangs a stock kernel forever, so
 * a probe that does not end within 10 s means TCG.
 */
static int kvm_probe(const struct target *t, const char *kernel, char *why, size_t whylen)
{
	char *append = xasprintf("console=%s panic=-1 root=/dev/kpair-probe rdinit=/kpair-probe %s",
				 t->console, t->extra_append);
	const char *argv[] = { t->qemu, "-M", t->machine, "-accel", "kvm", "-m", "256M",
			       "-nodefaults", "-no-user-config", "-display", "none",
			       "-no-reboot", "-serial", "stdio", "-kernel", kernel,
			       "-append", append, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	double t0 = mono_now();
	int ok = 0;

	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		snprintf(why, whylen, "no usable /dev/kvm: %s", strerror(errno));
		free(append);
		return 0;
	}
	util_quiet++;
	if (spawn_run(argv, 10000, &r) < 0) {
		snprintf(why, whylen, "KVM probe boot did not finish within 10 s (PVM or broken KVM)");
	} else if (r.exit_code) {
		snprintf(why, whylen, "KVM probe: QEMU exit %d: %.200s", r.exit_code, r.err);
	} else if (!strstr(r.out, "Linux version")) {
		snprintf(why, whylen, "KVM probe: the kernel printed nothing");
	} else {
		ok = 1;
		snprintf(why, whylen, "KVM probe booted to panic in %.1f s", mono_now() - t0);
	}
	util_quiet--;
	spawn_result_release(&r);
	free(append);
	return ok;
}

/* flock images/.accel-<target>.lock; the fd to close, or -1 (then no lock: probes may overlap) */
static int accel_lock(const struct target *t)
{
	char *dir = xasprintf("%s/images", kpair_root());
	char *path = xasprintf("%s/.accel-%s.lock", dir, t->name);
	int fd = mkdir_p(dir, 0755) < 0 ? -1 : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		fd = -1;
	}
	free(path);
	free(dir);
	return fd;
}

int accel_choose(const struct target *t, const char *kernel, const char *want,
		 char *accel, size_t len, char *why, size_t whylen)
{
	char *path = xasprintf("%s/images/accel-%s.json", kpair_root(), t->name);
	const char *a = NULL, *host = NULL, *w = NULL;
	struct utsname u;
	json_t *j;
	int ok, lock;

	if (strcmp(want, "auto")) {
		snprintf(accel, len, "%s", want);
		snprintf(why, whylen, "asked for %s", want);
		free(path);
		return 0;
	}
	uname(&u);
	lock = accel_lock(t);	/* one probe at a time; the others then read its verdict */
	j = json_load_file(path, 0, NULL);
	if (j && !json_unpack(j, "{s:s, s:s, s:s}", "accel", &a, "host", &host, "why", &w) &&
	    !strcmp(host, u.release)) {
		snprintf(accel, len, "%s", a);
		snprintf(why, whylen, "%s (cached probe)", w);
		json_decref(j);
		free(path);
		if (lock >= 0)
			close(lock);
		return 0;
	}
	json_decref(j);
	info("boot: probing KVM (10 s at most)");
	ok = kvm_probe(t, kernel, why, whylen);
	snprintf(accel, len, "%s", ok ? "kvm" : "tcg");
	info("boot: using %s: %s", accel, why);
	j = json_pack("{s:s, s:s, s:s}", "accel", accel, "host", u.release, "why", why);
	if (j) {
		char *text = json_dumps(j, JSON_INDENT(2));
		char *dir = xasprintf("%s/images", kpair_root());

		if (text && mkdir_p(dir, 0755) == 0)
			write_file_atomic(path, text, strlen(text));
		free(text);
		free(dir);
		json_decref(j);
	}
	free(path);
	if (lock >= 0)
		close(lock);
	return 0;
}
