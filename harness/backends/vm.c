/*
 * vm.c - what every backend shares: the run statuses, a run's result, the
 * console scan (panic, warnings, the tail), the deadlines of a watch loop, the
 * classification of how a run ended, the channel callback in front of the
 * caller's, and the table of backends
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/vm.h"
#include "util.h"

const struct run_status_info run_statuses[RUN_NSTATUS] = {
	[RUN_OK] = { "ok", 0, 0, "the workload ran and every record arrived" },
	[RUN_BOOT_TIMEOUT] = { "boot-timeout", 10, 1, "no hello from the agent within boot_timeout" },
	[RUN_WORKLOAD_TIMEOUT] = { "workload-timeout", 11, 1, "no done within timeout after hello" },
	[RUN_PANIC] = { "kernel-panic", 12, 1, "the kernel panicked (console)" },
	[RUN_AGENT_EXIT] = { "agent-exit", 13, 1, "the guest stopped without a done record" },
	[RUN_QEMU_DIED] = { "qemu-died", 14, 0, "QEMU failed or was killed" },
	[RUN_BAD_RECORD] = { "bad-record", 15, 1, "the guest sent a malformed or out-of-order record" },
	[RUN_WORKLOAD_FAILED] = { "workload-failed", 16, 1, "the agent reported an error" },
	[RUN_SETUP_FAILED] = { "setup-failed", 3, 0, "kernel, image or disk could not be prepared" },
	[RUN_STORE_FAILED] = { "store-failed", 17, 0, "the records could not be stored on the host (disk full?)" },
};

int run_status_is_guest(const char *name)
{
	int i;

	for (i = 0; name && i < RUN_NSTATUS; i++)
		if (!strcmp(name, run_statuses[i].name))
			return run_statuses[i].guest;
	return 0;
}

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

static void console_line(struct console_scan *w)
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

void console_scan_bytes(struct console_scan *w, const char *buf, size_t n)
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

void console_scan_end(struct console_scan *w)
{
	if (w->line_len)
		console_line(w);
}

void console_scan_text(struct vm_result *r, const char *text, size_t n)
{
	struct console_scan w = { .res = r, .log_fd = -1 };

	w.tail_len = strlen(r->console_tail);
	console_scan_bytes(&w, text, n);
	console_scan_end(&w);
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

/* the backends, the default first: a new one is one file and one line here */
static const struct backend *const backends[] = { &backend_qemu, &backend_libvirt, &backend_lava };

const struct backend *backend_find(const char *name)
{
	size_t i;

	if (!name)
		return backends[0];
	for (i = 0; i < ARRAY_SIZE(backends); i++)
		if (!strcmp(name, backends[i]->name))
			return backends[i];
	return NULL;
}

const struct backend *backend_for_hosts(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(backends); i++)
		if (backends[i]->caps & BACKEND_HOSTS)
			return backends[i];
	return NULL;
}

const char *const *backend_names(void)
{
	static const char *names[ARRAY_SIZE(backends) + 1];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(backends); i++)
		names[i] = backends[i]->name;
	return names;
}

const char *backend_names_text(void)
{
	static char buf[128];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(backends); i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
			 !i ? "" : i + 1 == ARRAY_SIZE(backends) ? " or " : ", ", backends[i]->name);
	return buf;
}

/* the getopt value of backend @b's option @i: BACKEND_OPT_BASE + 32 b + i */
void backend_getopt(struct option *lopts, int *n, int max)
{
	size_t b;
	int i;

	for (b = 0; b < ARRAY_SIZE(backends); b++)
		for (i = 0; backends[b]->opts && backends[b]->opts[i].name; i++) {
			if (*n >= max - 1)
				abort();	/* BUG: a command's table is sized for every option */
			lopts[(*n)++] = (struct option){ backends[b]->opts[i].name,
				backends[b]->opts[i].arg ? required_argument : no_argument, NULL,
				BACKEND_OPT_BASE + 32 * (int)b + i };
		}
	lopts[*n] = (struct option){ NULL, 0, NULL, 0 };
}

int backend_option(int val, const char *arg)
{
	size_t b = (size_t)(val - BACKEND_OPT_BASE) / 32;

	if (val < BACKEND_OPT_BASE || b >= ARRAY_SIZE(backends) || !backends[b]->option)
		return error("BUG: option value %d is no backend's", val);
	return backends[b]->option((val - BACKEND_OPT_BASE) % 32, arg);
}

const char *backend_usage(void)
{
	static struct text t;
	size_t b;

	if (t.s)
		return t.s;
	text_add(&t, "%s", "");
	for (b = 0; b < ARRAY_SIZE(backends); b++)
		text_add(&t, "%s", backends[b]->usage ? backends[b]->usage : "");
	return t.s;
}
