/* qemu.c - the QEMU backend: QEMU as a child, its console and results port on socketpairs, reaped */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backends/qemu-args.h"
#include "backends/vm.h"
#include "spawn.h"
#include "util.h"

struct argvb {
	char *v[128];
	int n;
};

static void add(struct argvb *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct argvb *a, const char *fmt, ...)
{
	va_list ap;

	if (a->n >= (int)ARRAY_SIZE(a->v) - 1)
		abort();	/* BUG: the argv table is sized for every device we add */
	va_start(ap, fmt);
	if (vasprintf(&a->v[a->n], fmt, ap) < 0)
		abort();
	va_end(ap);
	a->v[++a->n] = NULL;
}

static void argvb_release(struct argvb *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	a->n = 0;
}

/* job.pin_io: QEMU on io_cpu, its vCPU threads moved to cpu once they exist */
static int split_pin(const struct vm_spec *s)
{
	return s->cpu >= 0 && s->io_cpu >= 0 && s->io_cpu != s->cpu;
}

/* qemu_add_fn onto an argvb */
static void add_words(void *ctx, const char *opt, const char *val)
{
	add(ctx, "%s", opt);
	if (val)
		add(ctx, "%s", val);
}

static void qemu_argv(const struct vm_spec *s, int con_fd, int res_fd, struct argvb *a)
{
	const struct target *t = s->target;
	struct qemu_machine m = { t, s->accel, s->icount, s->memory, s->cpus, "-nographic" };
	char res[64];
	int i;

	add(a, "%s", t->qemu);
	add(a, "-name");
	/* split pinning finds the vCPU threads by their names ("CPU 0/TCG") */
	add(a, "%s%s", s->name, split_pin(s) ? ",debug-threads=on" : "");
	qemu_args_machine(&m, add_words, a);
	if (s->pid_file) {	/* QEMU's own: written once it is up, and names the run directory */
		add(a, "-pidfile");
		add(a, "%s", s->pid_file);
	}
	add(a, "-kernel");
	add(a, "%s", s->kernel);
	add(a, "-initrd");
	add(a, "%s", s->initrd);
	add(a, "-append");
	add(a, "%s", s->append);
	add(a, "-chardev");
	add(a, "socket,id=con,fd=%d", con_fd);
	add(a, "-serial");
	add(a, "chardev:con");
	snprintf(res, sizeof(res), "socket,id=res,fd=%d", res_fd);
	qemu_args_results_port(t, res, add_words, a);
	for (i = 0; i < s->ndisks; i++) {
		add(a, "-drive");
		add(a, "file=%s,format=raw,if=none,id=disk%d,cache=%s%s", s->disks[i].path, i,
		    s->disks[i].cache, s->disks[i].readonly ? ",readonly=on" : "");
		add(a, "-device");
		add(a, "%s,drive=disk%d", t->blk_dev, i);
	}
	if (s->host_root)
		qemu_args_host_root(t, s->host_root, add_words, a);
	if (s->plugin) {
		add(a, "-plugin");
		add(a, "%s", s->plugin);
		add(a, "-chardev");
		add(a, "file,id=sym,path=%s", s->symbols);
		add(a, "-device");
		add(a, "virtserialport,bus=vser.0,chardev=sym,name=org.kpair.symbols");
	}
}

char *qemu_command(const struct vm_spec *s, int con_fd, int res_fd)
{
	struct argvb a = { .n = 0 };
	char *cmd;

	qemu_argv(s, con_fd, res_fd, &a);
	cmd = spawn_cmdline((const char *const *)a.v);
	argvb_release(&a);
	return cmd;
}

static int qemu_run(const struct vm_spec *s, struct channel *ch, struct vm_result *res)
{
	int con[2] = { -1, -1 }, rsp[2] = { -1, -1 }, keep[3], log_fd = -1;
	struct console_scan w = { .res = res, .log_fd = -1 };
	struct vm_chain chain = { ch->cb, ch->user, res, s };
	int timed_out = 0, exited = 0, ret = -1, open_fds = 2;
	struct argvb a = { .n = 0 };
	double deadline, grace = -1;
	pid_t pid = -1;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, con) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rsp) < 0) {
		error("socketpair: %s", strerror(errno));
		goto out_close;
	}
	w.log_fd = open(s->console_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0644);
	if (w.log_fd < 0) {
		error("cannot create '%s': %s", s->console_log, strerror(errno));
		goto out_close;
	}
	log_fd = open(s->qemu_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		error("cannot create '%s': %s", s->qemu_log, strerror(errno));
		goto out_close;
	}
	qemu_argv(s, con[1], rsp[1], &a);
	res->cmdline = spawn_cmdline((const char *const *)a.v);
	keep[0] = con[1];
	keep[1] = rsp[1];
	keep[2] = -1;
	ch->cb = vm_chain_cb;
	ch->user = &chain;
	res->t_start = mono_now();
	if (spawn_start_on((const char *const *)a.v, log_fd, keep, split_pin(s) ? s->io_cpu : s->cpu,
			   &pid) < 0)
		goto out_close;
	res->qemu_pid = pid;
	close(con[1]);
	close(rsp[1]);
	con[1] = rsp[1] = -1;
	deadline = res->t_start + s->boot_timeout;
	while (open_fds > 0) {
		struct pollfd pfd[2] = { { con[0], POLLIN, 0 }, { rsp[0], POLLIN, 0 } };
		double now = mono_now();
		char buf[16384];
		int k, i;

		/* the vCPU threads ("CPU 0/TCG", "ALL CPUs/TCG" with icount) appear while QEMU
		 * starts: look every 10 ms until found */
		if (split_pin(s) && res->vcpus_pinned <= 0)
			res->vcpus_pinned = spawn_pin_threads(pid, "CPU", s->cpu);
		if (ch->failed)
			break;	/* nothing more from this guest can be trusted */
		if (vm_deadline(s, ch, res, now, &deadline, &grace, &timed_out))
			break;
		k = poll(pfd, 2, split_pin(s) && res->vcpus_pinned <= 0 ? 10 :
			 (int)((deadline - now) * 1000) + 1);
		if (k < 0 && errno != EINTR) {
			error("poll: %s", strerror(errno));
			break;
		}
		for (i = 0; k > 0 && i < 2; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (i == 0) {
					close(con[0]);
					con[0] = -1;
				} else {
					channel_end(ch);
					close(rsp[0]);
					rsp[0] = -1;
				}
				open_fds--;
				continue;
			}
			if (i == 0) {
				if (res->first_console < 0)
					res->first_console = mono_now() - res->t_start;
				console_scan_bytes(&w, buf, n);
			} else {
				channel_feed(ch, buf, n);
			}
		}
	}
	/* both ends closed: QEMU is going away; give it a moment to exit cleanly */
	if (open_fds == 0)
		exited = spawn_reap_within(pid, &res->qemu_status, 5);
	if (!exited) {
		res->qemu_status = spawn_kill(pid);
		exited = open_fds == 0 && !timed_out;
	}
	res->exit = mono_now() - res->t_start;
	if (s->pid_file)
		unlink(s->pid_file);	/* reaped: the pid is no longer QEMU's */
	console_scan_end(&w);
	vm_classify(s, res, ch, timed_out, exited);
	ret = 0;
out_close:
	ch->cb = chain.cb;
	ch->user = chain.user;
	argvb_release(&a);
	if (w.log_fd >= 0) {
		fsync(w.log_fd);
		close(w.log_fd);
	}
	if (log_fd >= 0)
		close(log_fd);
	for (int i = 0; i < 2; i++) {
		if (con[i] >= 0)
			close(con[i]);
		if (rsp[i] >= 0)
			close(rsp[i]);
	}
	return ret;
}

const struct backend backend_qemu = {
	.name = "qemu",
	.caps = BACKEND_HOST_ROOT | BACKEND_PLUGINS,
	.run = qemu_run,
};

