/*
 * libvirt.c - the libvirt backend: each run a transient domain
 * (virDomainCreateXML) with the same kernel, initramfs, command line and
 * virtio-blk disks as the QEMU backend. The serial console and the
 * org.kpair.results virtio-serial channel are unix sockets the harness
 * listens on and QEMU connects to while it starts, so no byte is missed. The
 * guest powers off with ACPI on; on_poweroff/on_reboot/on_crash destroy the
 * domain, which closes both sockets. The statuses are the QEMU backend's.
 */
#include <errno.h>
#include <fcntl.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "backends/vm.h"
#include "libvirt-remote.h"
#include "util.h"

#define LV_DEFAULT_URI "qemu:///system"

static const char *lv_arch(const struct target *t)
{
	if (!strcmp(t->arch, "amd64"))
		return "x86_64";
	if (!strcmp(t->arch, "i386"))
		return "i686";
	if (!strcmp(t->arch, "arm64"))
		return "aarch64";
	return t->arch;
}

/*
 * the domain: QEMU runs as root like the QEMU backend (static DAC label, no
 * relabelling). @file holds the kernel, initramfs and disk paths as the host
 * sees them; with @res_sock NULL the console is a pty and the results channel
 * a socket libvirt makes, both read back as streams (a remote host).
 */
static char *domain_xml(const struct vm_spec *s, const char *name, char *const *file,
			const char *con_sock, const char *res_sock)
{
	const struct target *t = s->target;
	struct text x = { 0 };
	int i;

	text_add(&x, "<domain type='%s'%s>\n  <name>", strcmp(s->accel, "kvm") ? "qemu" : "kvm",
		 s->icount ? " xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'" : "");
	text_esc(&x, name);
	text_add(&x, "</name>\n  <memory unit='MiB'>%llu</memory>\n",
		 (unsigned long long)(s->memory >> 20));
	/* job.pin: the vCPUs on one host CPU, the emulator's (I/O) threads there or on job.pin_io */
	if (s->cpu >= 0)
		text_add(&x, "  <vcpu cpuset='%d'>%llu</vcpu>\n  <cputune><emulatorpin cpuset='%d'/>"
			 "</cputune>\n", s->cpu, (unsigned long long)s->cpus,
			 s->io_cpu >= 0 ? s->io_cpu : s->cpu);
	else
		text_add(&x, "  <vcpu>%llu</vcpu>\n", (unsigned long long)s->cpus);
	text_add(&x, "  <os>\n    <type arch='%s' machine='", lv_arch(t));
	text_esc(&x, t->machine);
	text_add(&x, "'>hvm</type>\n");
	if (*t->bios) {	/* target.bios: libvirt's -bios */
		text_add(&x, "    <loader type='rom'>");
		text_esc(&x, t->bios);
		text_add(&x, "</loader>\n");
	}
	text_add(&x, "    <kernel>");
	text_esc(&x, file[0]);
	text_add(&x, "</kernel>\n    <initrd>");
	text_esc(&x, file[1]);
	text_add(&x, "</initrd>\n    <cmdline>");
	text_esc(&x, s->append);
	text_add(&x, "</cmdline>\n  </os>\n  <features><acpi/></features>\n");
	if (*t->cpu) {
		text_add(&x, "  <cpu mode='custom' match='exact'><model fallback='allow'>");
		text_esc(&x, t->cpu);
		text_add(&x, "</model></cpu>\n");
	}
	text_add(&x, "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n"
		   "  <on_crash>destroy</on_crash>\n  <devices>\n    <emulator>");
	if (t->qemu[0] != '/')
		text_add(&x, "/usr/bin/");
	text_esc(&x, t->qemu);
	text_add(&x, "</emulator>\n");
	for (i = 0; i < s->ndisks; i++) {
		text_add(&x, "    <disk type='file' device='disk'>\n      <driver name='qemu' type='raw' "
			   "cache='%s'/>\n      <source file='", s->disks[i].cache);
		text_esc(&x, file[2 + i]);
		text_add(&x, "'/>\n      <target dev='vd%c' bus='virtio'/>%s\n    </disk>\n", 'a' + i,
		       s->disks[i].readonly ? "<readonly/>" : "");
	}
	if (res_sock) {
		text_add(&x, "    <serial type='unix'>\n      <source mode='connect' path='");
		text_esc(&x, con_sock);
		text_add(&x, "'/>\n      <target port='0'/>\n    </serial>\n");
	} else {
		text_add(&x, "    <serial type='pty'>\n      <target port='0'/>\n    </serial>\n");
	}
	text_add(&x, "    <controller type='virtio-serial' index='0'/>\n    <channel type='unix'>\n");
	if (res_sock) {
		text_add(&x, "      <source mode='connect' path='");
		text_esc(&x, res_sock);
		text_add(&x, "'/>\n");
	}
	text_add(&x, "      <target type='virtio' name='org.kpair.results'/>\n    </channel>\n"
		   "    <controller type='usb' model='none'/>\n    <memballoon model='none'/>\n"
		   "  </devices>\n  <seclabel type='static' model='dac' relabel='no'>"
		   "<label>+0:+0</label></seclabel>\n");
	/* job.mode=icount: libvirt has no element for it, QEMU's own argument passes through */
	if (s->icount) {
		text_add(&x, "  <qemu:commandline><qemu:arg value='-icount'/><qemu:arg value='");
		text_esc(&x, s->icount);
		text_add(&x, "'/></qemu:commandline>\n");
	}
	text_add(&x, "</domain>\n");
	return x.s;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return error("socket path '%s' is too long", path);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error("socket: %s", strerror(errno));
	unlink(path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0) {
		error("cannot listen on '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* the connection QEMU made while it started (it is in the backlog by now) */
static int accept_one(int lfd, double until)
{
	struct pollfd p = { lfd, POLLIN, 0 };
	double now = mono_now();

	if (poll(&p, 1, now < until ? (int)((until - now) * 1000) + 1 : 0) <= 0)
		return -1;
	return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

static void lv_quiet(void *user, virErrorPtr e)
{
	(void)user;
	(void)e;	/* errors are reported where they happen, with context */
}

static const char *lv_err(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->message ? e->message : "unknown libvirt error";
}

/* QEMU's log of the domain, which libvirt keeps, copied to the run's qemu.log */
static void copy_qemu_log(const struct vm_spec *s, const char *name)
{
	char *from = xasprintf("/var/log/libvirt/qemu/%s.log", name);

	util_quiet++;
	if (s->qemu_log && path_exists(from))
		copy_file(from, s->qemu_log);
	unlink(from);
	util_quiet--;
	free(from);
}

/* the watch loop: console to the log and the tail, records to the channel, deadlines */
static void lv_watch(const struct vm_spec *s, struct channel *ch, struct vm_result *res,
		     int fds[2], int log_fd, struct text *con, int *timed_out)
{
	double deadline = res->t_start + s->boot_timeout, grace = -1;
	int open_fds = (fds[0] >= 0) + (fds[1] >= 0);

	while (open_fds > 0 && !ch->failed) {
		struct pollfd pfd[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };
		double now = mono_now();
		char buf[16384];
		int k, i;

		if (vm_deadline(s, ch, res, now, &deadline, &grace, timed_out))
			break;
		k = poll(pfd, 2, (int)((deadline - now) * 1000) + 1);
		for (i = 0; k > 0 && i < 2; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (i)
					channel_end(ch);
				close(fds[i]);
				fds[i] = -1;
				open_fds--;
			} else if (i == 0) {
				if (res->first_console < 0)
					res->first_console = mono_now() - res->t_start;
				if (log_fd >= 0 && write(log_fd, buf, n) < 0)
					log_fd = -1;
				text_add(con, "%.*s", (int)n, buf);
			} else {
				channel_feed(ch, buf, n);
			}
		}
	}
}

/*
 * A host whose files are not ours: --hosts asks for it (s->remote), and so
 * does a remote transport or a host name in the URI (qemu+ssh://bench1/system).
 */
static int lv_remote(const struct vm_spec *s, const char *uri)
{
	const char *p = strstr(uri, "://");

	if (s->remote)
		return 1;
	if (!p)
		return 0;
	return memchr(uri, '+', p - uri) || (p[3] && p[3] != '/');
}

/* libvirt's event loop, which the streams of a remote host need: once, before any connection */
static void lv_events_once(void)
{
	static int done;

	if (!done && virEventRegisterDefaultImpl() < 0)
		warning("libvirt: no event loop: %s", lv_err());
	done = 1;
}

/* the domain went away on poweroff; give it a moment, then destroy it */
static void lv_reap(virDomainPtr dom, const char *name, int hurry)
{
	int i, gone = 0;

	for (i = 0; i < 500 && !gone; i++) {
		gone = virDomainIsActive(dom) != 1;
		if (!gone && hurry)
			break;
		if (!gone)
			usleep(10000);
	}
	if (!gone && virDomainDestroy(dom) < 0 && virDomainIsActive(dom) == 1)
		warning("libvirt: cannot destroy domain '%s': %s", name, lv_err());
}

static int libvirt_run(const struct vm_spec *s, struct channel *ch, struct vm_result *res)
{
	static unsigned seq;
	const char *uri = s->dest ? s->dest : LV_DEFAULT_URI;
	char tmpl[] = "/tmp/kpair-lv-XXXXXX", *sock[2] = { NULL, NULL }, *xml = NULL, *name;
	char *file[LV_NFILES] = { (char *)s->kernel, (char *)s->initrd }, *host;
	struct vm_chain chain = { ch->cb, ch->user, res, s };
	int lfd[2] = { -1, -1 }, fds[2] = { -1, -1 }, log_fd = -1, timed_out = 0, i;
	int remote = lv_remote(s, uri), broken = 0;
	struct text con = { 0 };
	struct lv_stage stg;
	virConnectPtr conn = NULL;
	virDomainPtr dom = NULL;
	int ret = -1;

	lv_stage_init(&stg);
	name = xasprintf("kpair-%s-%u", s->name, seq++);
	if (!mkdtemp(tmpl))
		return error("mkdtemp: %s", strerror(errno));
	for (i = 0; !remote && i < 2; i++) {
		sock[i] = xasprintf("%s/%s.sock", tmpl, i ? "results" : "console");
		lfd[i] = listen_unix(sock[i]);
		if (lfd[i] < 0)
			goto out;
	}
	log_fd = open(s->console_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		error("cannot create '%s': %s", s->console_log, strerror(errno));
		goto out;
	}
	virSetErrorFunc(NULL, lv_quiet);
	lv_events_once();
	conn = virConnectOpen(uri);
	if (!conn) {
		error("libvirt: cannot connect to '%s': %s", uri, lv_err());
		goto out;
	}
	host = virConnectGetHostname(conn);
	snprintf(res->where, sizeof(res->where), "%s", host ? host : "?");
	res->vcpus_pinned = s->cpu >= 0 ? (int)s->cpus : 0;	/* <vcpu cpuset> binds them all */
	free(host);
	for (i = 0; i < s->ndisks; i++)
		file[2 + i] = (char *)s->disks[i].path;
	if (remote) {
		if (lv_stage_upload(&stg, conn, name, s) < 0)
			goto out;
		memcpy(file, stg.paths, sizeof(file));
		res->sent_s = stg.upload_s;
		res->sent_bytes = stg.bytes;
	}
	xml = domain_xml(s, name, file, sock[0], sock[1]);
	res->cmdline = xasprintf("virDomainCreateXML(%s) %s", uri, xml);
	ch->cb = vm_chain_cb;
	ch->user = &chain;
	res->t_start = mono_now();
	dom = virDomainCreateXML(conn, xml, remote ? VIR_DOMAIN_START_PAUSED : VIR_DOMAIN_NONE);
	if (!dom) {
		/* QEMU did not come up: the run failed as a QEMU start does */
		res->exit = mono_now() - res->t_start;
		res->status = RUN_QEMU_DIED;
		snprintf(res->reason, sizeof(res->reason), "libvirt could not start the domain: %.400s",
			 lv_err());
		ret = 0;
		goto out;
	}
	if (remote) {
		broken = lv_stream_watch(conn, dom, s, ch, res, log_fd, &con, &timed_out) < 0;
	} else {
		for (i = 0; i < 2; i++)
			fds[i] = accept_one(lfd[i], mono_now() + 10);
		if (fds[0] < 0 || fds[1] < 0)
			warning("libvirt: QEMU did not connect the %s socket",
				fds[0] < 0 ? "console" : "results");
		lv_watch(s, ch, res, fds, log_fd, &con, &timed_out);
	}
	lv_reap(dom, name, timed_out || ch->failed || broken);
	res->qemu_status = 0;
	res->exit = mono_now() - res->t_start;
	copy_qemu_log(s, name);
	if (con.len)
		console_scan_text(res, con.s, con.len);
	vm_classify(s, res, ch, timed_out, 0);
	if (broken) {
		res->status = RUN_QEMU_DIED;
		snprintf(res->reason, sizeof(res->reason), "%.500s", error_last());
	}
	ret = 0;
out:
	ch->cb = chain.cb;
	ch->user = chain.user;
	if (dom)
		virDomainFree(dom);
	lv_stage_release(&stg);
	if (conn)
		virConnectClose(conn);
	if (log_fd >= 0) {
		fsync(log_fd);
		close(log_fd);
	}
	for (i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		if (lfd[i] >= 0)
			close(lfd[i]);
		if (sock[i])
			unlink(sock[i]);
		free(sock[i]);
	}
	rmdir(tmpl);
	free(con.s);
	free(xml);
	free(name);
	return ret;
}

/* a libvirt URI of this host's daemon (qemu:///system, qemu:///session) */
static int libvirt_same_host(const char *dest)
{
	return !dest || !strncmp(dest, "qemu:///", 8);
}

const struct backend backend_libvirt = {
	.name = "libvirt",
	.caps = BACKEND_HOSTS,
	.same_host = libvirt_same_host,
	.run = libvirt_run,
};
