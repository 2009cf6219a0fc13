/* boot.c - the QEMU backend: argv, the watch loop, timeouts, console scan, reaping */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "spawn.h"
#include "util.h"

const struct run_status_info run_statuses[RUN_NSTATUS] = {
	[RUN_OK] = { "ok", 0, "the workload ran and every record arrived" },
	[RUN_BOOT_TIMEOUT] = { "boot-timeout", 10, "no hello from the agent within boot_timeout" },
	[RUN_WORKLOAD_TIMEOUT] = { "workload-timeout", 11, "no done within timeout after hello" },
	[RUN_PANIC] = { "kernel-panic", 12, "the kernel panicked (console)" },
	[RUN_AGENT_EXIT] = { "agent-exit", 13, "the guest stopped without a done record" },
	[RUN_QEMU_DIED] = { "qemu-died", 14, "QEMU failed or was killed" },
	[RUN_BAD_RECORD] = { "bad-record", 15, "the guest sent a malformed or out-of-order record" },
	[RUN_WORKLOAD_FAILED] = { "workload-failed", 16, "the agent reported an error" },
	[RUN_SETUP_FAILED] = { "setup-failed", 3, "kernel, image or disk could not be prepared" },
	[RUN_STORE_FAILED] = { "store-failed", 17, "the records could not be stored on the host (disk full?)" },
};

/* console lines that mark a run even when it completes (like stress-ng's klog check) */
static const char *const warn_patterns[] = {
	"Oops", "BUG:", "WARNING:", "general protection fault", "soft lockup",
	"blocked for more than", "Call Trace:", "kernel BUG at", "detected stalls on CPUs",
	"self-detected stall", "hard LOCKUP", "UBSAN:", "Unable to handle kernel", NULL,
};

void vm_result_init(struct vm_result *r)
{
	memset(r, 0, sizeof(*r));
	r->first_console = r->hello = r->first_sample = r->done = r->exit = -1;
}

void vm_result_release(struct vm_result *r)
{
	free(r->cmdline);
	vm_result_init(r);
}

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

static void qemu_argv(const struct vm_spec *s, int con_fd, int res_fd, struct argvb *a)
{
	const struct target *t = s->target;
	int i;

	add(a, "%s", t->qemu);
	add(a, "-name");
	/* split pinning finds the vCPU threads by their names ("CPU 0/TCG") */
	add(a, "%s%s", s->name, split_pin(s) ? ",debug-threads=on" : "");
	add(a, "-M");
	add(a, "%s", t->machine);
	add(a, "-accel");
	add(a, "%s", s->accel);
	if (*t->bios) {
		add(a, "-bios");
		add(a, "%s", t->bios);
	}
	if (*t->cpu) {
		add(a, "-cpu");
		add(a, "%s", t->cpu);
	}
	if (s->icount) {
		add(a, "-icount");
		add(a, "%s", s->icount);
	}
	add(a, "-m");
	add(a, "%lluM", (unsigned long long)(s->memory >> 20));
	add(a, "-smp");
	add(a, "%llu", (unsigned long long)s->cpus);
	add(a, "-nodefaults");
	add(a, "-no-user-config");
	add(a, "-nographic");
	add(a, "-no-reboot");
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
	add(a, "-device");
	add(a, "%s,id=vser", t->serial_dev);
	add(a, "-chardev");
	add(a, "socket,id=res,fd=%d", res_fd);
	add(a, "-device");
	add(a, "virtserialport,bus=vser.0,chardev=res,name=org.kpair.results");
	for (i = 0; i < s->ndisks; i++) {
		add(a, "-drive");
		add(a, "file=%s,format=raw,if=none,id=disk%d,cache=%s%s", s->disks[i].path, i,
		    s->disks[i].cache, s->disks[i].readonly ? ",readonly=on" : "");
		add(a, "-device");
		add(a, "%s,drive=disk%d", t->blk_dev, i);
	}
	if (s->host_root) {	/* read-only: the guest sees the host's files, never writes them */
		add(a, "-fsdev");
		add(a, "local,id=hostroot,path=%s,security_model=none,readonly=on", s->host_root);
		add(a, "-device");
		add(a, "%s,fsdev=hostroot,mount_tag=hostroot",
		    strstr(t->blk_dev, "-pci") ? "virtio-9p-pci" : "virtio-9p-device");
	}
}

struct watch {
	const struct vm_spec *spec;
	struct channel *ch;
	struct vm_result *res;
	int log_fd;
	char line[512];
	size_t line_len;
	size_t tail_len;
};

/* where the kernel's part of a console line starts: BIOS text without a newline comes first */
static const char *printk_start(const char *l)
{
	const char *p;

	for (p = strchr(l, '['); p; p = strchr(p + 1, '[')) {
		const char *q = p + 1 + strspn(p + 1, " ");
		size_t d = strspn(q, "0123456789");

		if (d && q[d] == '.' && strspn(q + d + 1, "0123456789") == 6 && q[d + 7] == ']')
			return p;
	}
	return l;
}

static void console_line(struct watch *w)
{
	struct vm_result *r = w->res;
	const char *l = w->line, *p;
	int i;

	w->line[w->line_len] = '\0';
	if (!r->panic_line[0] && (p = strstr(l, "Kernel panic - not syncing")))
		snprintf(r->panic_line, sizeof(r->panic_line), "%.255s", p);
	for (i = 0; warn_patterns[i]; i++) {
		if (strstr(l, warn_patterns[i])) {
			if (!r->warnings++)
				snprintf(r->first_warning, sizeof(r->first_warning), "%.255s",
					 printk_start(l));
			break;
		}
	}
	w->line_len = 0;
}

static void console_bytes(struct watch *w, const char *buf, size_t n)
{
	struct vm_result *r = w->res;
	size_t i;

	if (w->log_fd >= 0 && write(w->log_fd, buf, n) < 0)
		w->log_fd = -1;	/* the run goes on; the tail is still kept */
	for (i = 0; i < n; i++) {
		char c = buf[i];

		if (c == '\r')
			continue;
		if (c == '\n' || w->line_len + 1 >= sizeof(w->line)) {
			console_line(w);
			if (c == '\n')
				goto tail;
		}
		w->line[w->line_len++] = c;
tail:
		if (w->tail_len == CONSOLE_TAIL) {
			memmove(r->console_tail, r->console_tail + CONSOLE_TAIL / 2, CONSOLE_TAIL / 2);
			w->tail_len = CONSOLE_TAIL / 2;
		}
		r->console_tail[w->tail_len++] = c;
		r->console_tail[w->tail_len] = '\0';
	}
}

void console_scan_text(struct vm_result *r, const char *text, size_t n)
{
	struct watch w = { .res = r, .log_fd = -1 };

	w.tail_len = strlen(r->console_tail);
	console_bytes(&w, text, n);
	if (w.line_len)
		console_line(&w);
}

/* the last non-empty line of @text, from its printk timestamp on, into @out */
static void last_line(const char *text, char *out, size_t len)
{
	const char *end = text + strlen(text), *b;

	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (b = end; b > text && b[-1] != '\n'; b--)
		;
	snprintf(out, len, "%.*s", (int)(end - b), b);
	memmove(out, printk_start(out), strlen(printk_start(out)) + 1);
}

/* "Attempted to kill init! exitcode=0x0000000b": what PID 1 died of */
static void init_death(const char *panic, char *out, size_t len)
{
	const char *p = strstr(panic, "exitcode=");
	unsigned long code;

	if (!p) {
		snprintf(out, len, "it died");
		return;
	}
	code = strtoul(p + 9, NULL, 16);
	if (code & 0x7f)
		snprintf(out, len, "killed by signal %lu (%s)%s", code & 0x7f,
			 strsignal((int)(code & 0x7f)), code & 0x80 ? ", core dumped" : "");
	else
		snprintf(out, len, "exited with status %lu", (code >> 8) & 0xff);
}

/* the last line QEMU wrote to its log, into @out ("" when none) */
static void qemu_last_words(const struct vm_spec *s, char *out, size_t len)
{
	char *text = NULL;

	out[0] = '\0';
	if (!s->qemu_log || !path_exists(s->qemu_log))
		return;
	util_quiet++;
	if (read_file(s->qemu_log, &text, NULL) == 0)
		last_line(text, out, len);
	util_quiet--;
	free(text);
}

int vm_deadline(const struct vm_spec *s, const struct channel *ch, const struct vm_result *res,
		double now, double *deadline, double *grace, int *timed_out)
{
	if (ch->got_hello && res->hello >= 0 && *grace < 0 && !ch->got_done)
		*deadline = res->t_start + res->hello + s->workload_timeout;
	if (ch->got_done && *grace < 0)
		*deadline = *grace = now + 30;	/* time to sync and power off */
	if (now < *deadline)
		return 0;
	*timed_out = !ch->got_done;
	return 1;
}

void vm_classify(const struct vm_spec *s, struct vm_result *r, struct channel *ch,
		 int timed_out, int qemu_exited)
{
	int st = r->qemu_status, killed = qemu_exited && WIFSIGNALED(st);
	char con[200], why[120];

	last_line(r->console_tail, con, sizeof(con));
	if (r->store_error[0]) {
		r->status = RUN_STORE_FAILED;
		snprintf(r->reason, sizeof(r->reason), "cannot store the records: %.400s",
			 r->store_error);
	} else if (ch->failed && !killed) {
		r->status = RUN_BAD_RECORD;
		snprintf(r->reason, sizeof(r->reason), "%s", ch->why);
	} else if (ch->got_done && !ch->failed) {
		r->status = RUN_OK;
		if (r->warnings)
			snprintf(r->reason, sizeof(r->reason), "ok, but the console has %d warning "
				 "line(s), first: %.300s", r->warnings, r->first_warning);
		else
			snprintf(r->reason, sizeof(r->reason), "ok");
	} else if (killed) {
		r->status = RUN_QEMU_DIED;
		snprintf(r->reason, sizeof(r->reason), "QEMU killed by signal %d (%s) %s hello, "
			 "%llu samples in", WTERMSIG(st), strsignal(WTERMSIG(st)),
			 ch->got_hello ? "after" : "before", (unsigned long long)ch->samples);
	} else if (r->panic_line[0] && strstr(r->panic_line, "Attempted to kill init")) {
		/* the agent is PID 1: its death is the kernel's last word, not a kernel bug */
		r->status = RUN_AGENT_EXIT;
		init_death(r->panic_line, why, sizeof(why));
		snprintf(r->reason, sizeof(r->reason), "the agent (PID 1) died, %s: %s", why,
			 r->panic_line);
	} else if (r->panic_line[0]) {
		r->status = RUN_PANIC;
		snprintf(r->reason, sizeof(r->reason), "%s", r->panic_line);
	} else if (r->error_record[0]) {
		r->status = RUN_WORKLOAD_FAILED;
		snprintf(r->reason, sizeof(r->reason), "%s", r->error_record);
	} else if (timed_out && !ch->got_hello) {
		r->status = RUN_BOOT_TIMEOUT;
		snprintf(r->reason, sizeof(r->reason), "no hello within %.1f s of QEMU start; "
			 "console: %s", s->boot_timeout, *con ? con : "(nothing)");
	} else if (timed_out) {
		r->status = RUN_WORKLOAD_TIMEOUT;
		snprintf(r->reason, sizeof(r->reason), "no done within %.1f s after hello "
			 "(%llu samples in); console: %s", s->workload_timeout,
			 (unsigned long long)ch->samples, *con ? con : "(nothing)");
	} else if (qemu_exited && WIFEXITED(st) && WEXITSTATUS(st)) {
		r->status = RUN_QEMU_DIED;
		qemu_last_words(s, con, sizeof(con));
		snprintf(r->reason, sizeof(r->reason), "QEMU exited with status %d: %s",
			 WEXITSTATUS(st), *con ? con : "(qemu.log is empty)");
	} else {
		r->status = RUN_AGENT_EXIT;
		snprintf(r->reason, sizeof(r->reason), "guest stopped %s hello without a done record",
			 ch->got_hello ? "after" : "before");
	}
}

static int watch_cb_error(struct vm_result *r, json_t *rec)
{
	const char *stage = "?", *msg = "?";

	json_unpack(rec, "{s:s, s:s}", "stage", &stage, "message", &msg);
	snprintf(r->error_record, sizeof(r->error_record), "agent: %s: %s", stage, msg);
	return 0;
}

int vm_chain_cb(void *user, enum rec_type type, json_t *rec, const char *line, size_t len)
{
	struct vm_chain *c = user;
	double t = mono_now() - c->res->t_start;

	if (type == REC_HELLO)
		c->res->hello = t;
	else if (type == REC_DONE)
		c->res->done = t;
	else if (type == REC_SAMPLE && c->res->first_sample < 0)
		c->res->first_sample = t;
	else if (type == REC_ERROR)
		watch_cb_error(c->res, rec);
	if (c->spec->on_phase && (type == REC_HELLO || type == REC_DONE))
		c->spec->on_phase(c->spec->phase_user, type == REC_HELLO ? "workload" : "poweroff");
	if (c->cb && c->cb(c->user, type, rec, line, len) < 0) {
		if (!c->res->store_error[0])	/* the host's fault, not the guest's */
			snprintf(c->res->store_error, sizeof(c->res->store_error), "%s",
				 error_last());
		return -1;
	}
	return 0;
}

static int qemu_run(const struct vm_spec *s, struct channel *ch, struct vm_result *res)
{
	int con[2] = { -1, -1 }, rsp[2] = { -1, -1 }, keep[3], log_fd = -1;
	struct watch w = { .spec = s, .ch = ch, .res = res, .log_fd = -1 };
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
				console_bytes(&w, buf, n);
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
	if (w.line_len)
		console_line(&w);
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
	.run = qemu_run,
};

const struct backend *backend_find(const char *name)
{
	static const struct backend *const all[] = { &backend_qemu, &backend_libvirt, &backend_lava };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all); i++)
		if (!strcmp(all[i]->name, name ? name : "qemu"))
			return all[i];
	return NULL;
}
