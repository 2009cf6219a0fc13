/*
 * lava-run.c - one run as one LAVA job (backend_lava): the job definition
 * from the vm_spec (QEMU as kpair's own backend starts it, through the qemu
 * device type's context: arch, memory, extra_options), its submission, the
 * wait with a progress line and a queue deadline, and the job log read back:
 * the console lines go to console.log, the records the agent echoes there
 * (kpair.echo=1) through the channel. A job that ends Incomplete or Canceled
 * without a done record is a failed run with LAVA's reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "export.h"
#include "lava.h"
#include "util.h"

#define ECHO_PREFIX "kpair-record: "
#define POLL_S 2.0
#define DEPLOY_S 600	/* LAVA's copies of the images, on top of the boot and workload */

static void extra(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void extra(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	text_add(t, "  - ");
	yaml_str(t, s);
	text_add(t, "\n");
	free(s);
}

static void image(struct text *y, const char *label, const char *path, const char *arg)
{
	char *url = export_file_url(path);

	text_add(y, "      %s:\n        url: ", label);
	yaml_str(y, url);
	text_add(y, "\n        image_arg: ");
	yaml_str(y, arg);
	text_add(y, "\n");
	free(url);
}

static int spec_ok(const struct vm_spec *s)
{
	if (strpbrk(s->append, "\"\\'{}"))
		return error("kernel command line '%s': quotes, backslashes and braces cannot pass "
			     "through LAVA's QEMU command line", s->append);
	if (s->host_root)
		return error("the lava backend cannot share the host's / with the guest");
	return 0;
}

static char *job_yaml(const struct vm_spec *s)
{
	const struct target *t = s->target;
	unsigned long long run_s = (unsigned long long)(s->boot_timeout + s->workload_timeout) + 60;
	struct text y = { 0 };
	char *arg, label[16];
	int i;

	text_add(&y, "job_name: ");
	arg = xasprintf("kpair %s", s->name);
	yaml_str(&y, arg);
	free(arg);
	text_add(&y, "\ndevice_type: ");
	yaml_str(&y, lava_conf.device_type);
	text_add(&y, "\nvisibility: public\npriority: medium\n"
		 "timeouts:\n  job:\n    seconds: %llu\n  connection:\n    seconds: %llu\n",
		 run_s + DEPLOY_S, run_s);
	text_add(&y, "context:\n  arch: ");
	yaml_str(&y, t->arch);
	text_add(&y, "\n  memory: %llu\n  no_kvm: 'true'\n  failure_retry: 1\n  boot_retry: 1\n"
		 "  extra_options:\n", (unsigned long long)(s->memory >> 20));
	extra(&y, "-M %s", t->machine);
	extra(&y, "-accel %s", s->accel);
	if (*t->bios)
		extra(&y, "-bios %s", t->bios);
	if (*t->cpu)
		extra(&y, "-cpu %s", t->cpu);
	if (s->icount)
		extra(&y, "-icount %s", s->icount);
	extra(&y, "-smp %llu", (unsigned long long)s->cpus);
	extra(&y, "-nodefaults -no-user-config -no-reboot -serial stdio");
	extra(&y, "-device %s,id=vser", t->serial_dev);
	/* the results port must be open for the agent; the records come back on the console */
	extra(&y, "-chardev file,id=res,path=/dev/null");
	extra(&y, "-device virtserialport,bus=vser.0,chardev=res,name=org.kpair.results");
	text_add(&y, "actions:\n- deploy:\n    to: tmpfs\n    timeout:\n      seconds: %d\n"
		 "    images:\n", DEPLOY_S);
	arg = xasprintf("-kernel {kernel} -append \"%s kpair.echo=1\"", s->append);
	image(&y, "kernel", s->kernel, arg);
	free(arg);
	image(&y, "initrd", s->initrd, "-initrd {initrd}");
	for (i = 0; i < s->ndisks; i++) {
		snprintf(label, sizeof(label), "disk%d", i);
		/* PCI slots after whatever the device type adds: /dev/vda is disk0 */
		arg = xasprintf("-drive format=raw,file={%s},if=none,id=%s,cache=%s%s "
				"-device %s,drive=%s,addr=0x%x", label, label, s->disks[i].cache,
				s->disks[i].readonly ? ",readonly=on" : "", t->blk_dev, label,
				0x10 + i);
		image(&y, label, s->disks[i].path, arg);
		free(arg);
	}
	text_add(&y, "- boot:\n    method: qemu\n    media: tmpfs\n"
		 "    timeout:\n      seconds: %llu\n", run_s);
	/* the monitor keeps the job on the console from hello to done */
	text_add(&y, "- test:\n    timeout:\n      seconds: %llu\n    monitors:\n"
		 "    - name: kpair\n      start: '%s\\{\"type\":\"hello\"'\n"
		 "      end: '%s\\{\"type\":\"done\"'\n"
		 "      pattern: '%s\\{\"type\":\"sample\",\"seq\":[0-9]+,\"metric\":"
		 "\"(?P<test_case_id>[^\"]+)\"'\n", run_s, ECHO_PREFIX, ECHO_PREFIX, ECHO_PREFIX);
	return y.s;
}

/* submit @def: the job id, or -1 with an error carrying LAVA's message */
static long submit(const char *def)
{
	json_t *req = json_pack("{s:s}", "definition", def), *ans = NULL, *ids;
	struct text t = { 0 };
	char *body = json_dumps(req, JSON_COMPACT);
	long code = lava_http("jobs/", body, &t), id = -1;

	if (code < 0)
		goto out;
	ans = json_loads(t.s, 0, NULL);
	ids = json_object_get(ans, "job_ids");
	if (code == 201 && json_is_array(ids) && json_is_integer(json_array_get(ids, 0)))
		id = (long)json_integer_value(json_array_get(ids, 0));
	else if (code == 401 || code == 403)
		error("lava: %s: the server refuses the token of '%s' (HTTP %ld)", lava_conf.url,
		      lava_conf.token_file, code);
	else
		error("lava: submitting the job: HTTP %ld: %.300s", code,
		      jget_str(ans, "message")[0] ? jget_str(ans, "message") : t.s);
out:
	json_decref(ans);
	json_decref(req);
	free(body);
	free(t.s);
	return id;
}

static void cancel(long id)
{
	struct text t = { 0 };
	char *path = xasprintf("jobs/%ld/cancel/", id);

	lava_http(path, NULL, &t);
	free(path);
	free(t.s);
}

/*
 * Wait for job @id to finish. 0 with its health in @health ("Complete", ...)
 * and LAVA's failure comment in @why; -1 when kpair gave up on it (the queue
 * deadline, the run's deadline, a server that went away), @why saying why.
 */
static int wait_job(long id, double queue_s, double run_s, char *health, size_t hlen,
		    char *why, size_t wlen)
{
	double t0 = mono_now(), started = -1, now;
	char path[64], last[32] = "", state[32];
	int tty = isatty(2), fails = 0;
	json_t *j;

	snprintf(path, sizeof(path), "jobs/%ld/", id);
	for (;;) {
		now = mono_now();
		j = lava_get(path, "job status", NULL);
		if (!j) {
			if (++fails < 5)
				goto sleep;
			snprintf(why, wlen, "lost the server while waiting: %.300s", error_last());
			return -1;
		}
		fails = 0;
		snprintf(state, sizeof(state), "%s", jget_str(j, "state"));
		snprintf(health, hlen, "%s", jget_str(j, "health"));
		snprintf(why, wlen, "%s", jget_str(j, "failure_comment"));
		json_decref(j);
		if (started < 0 && strcmp(state, "Submitted"))
			started = now;
		if (tty)
			fprintf(stderr, "\rkpair: lava job %ld: %-10s %4.0f s ", id, state, now - t0);
		else if (strcmp(state, last))
			info("lava job %ld: %s after %.0f s", id, state, now - t0);
		snprintf(last, sizeof(last), "%s", state);
		if (!strcmp(state, "Finished"))
			break;
		if (started < 0 && now - t0 > queue_s) {
			cancel(id);
			snprintf(why, wlen, "lava job %ld did not start within %.0f s "
				 "(--lava-queue-timeout): canceled", id, queue_s);
			return -1;
		}
		if (started >= 0 && now - started > run_s) {
			cancel(id);
			snprintf(why, wlen, "lava job %ld ran past %.0f s: canceled", id, run_s);
			return -1;
		}
sleep:
		usleep((useconds_t)(POLL_S * 1e6));
	}
	if (tty)
		fprintf(stderr, "\n");
	return 0;
}

/*
 * a console line from LAVA's log: scanned, to console.log, and a record into the channel. LAVA's
 * log escapes the console's " as \" inside a message: a record line is unescaped first.
 */
static void console_line(struct channel *ch, FILE *log, struct text *con, const char *msg)
{
	struct text rec = { 0 };
	const char *p;

	if (strncmp(msg, ECHO_PREFIX, strlen(ECHO_PREFIX))) {
		fprintf(log, "%s\n", msg);
		text_add(con, "%s\n", msg);
		return;
	}
	for (p = msg; *p; p++) {
		if (p[0] == '\\' && p[1] == '"')
			p++;
		text_add(&rec, "%c", *p);
	}
	text_add(&rec, "\n");
	fputs(rec.s, log);
	text_add(con, "%s", rec.s);
	if (!ch->failed)
		channel_feed(ch, rec.s + strlen(ECHO_PREFIX), rec.len - strlen(ECHO_PREFIX));
	free(rec.s);
}

int lava_log_console(char *text, struct channel *ch, FILE *log, struct text *con)
{
	char *line, *next;
	int n = 0;
	json_t *j;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "- {", 3))
			continue;
		j = json_loads(line + 2, 0, NULL);
		/* after the monitor's end match (done), LAVA logs the console as feedback */
		if (json_is_object(j) && (!strcmp(jget_str(j, "lvl"), "target") ||
					  !strcmp(jget_str(j, "lvl"), "feedback"))) {
			console_line(ch, log, con, jget_str(j, "msg"));
			n++;
		}
		json_decref(j);
	}
	return n;
}

/* job @id's log into console.log, the console scan and the channel */
static int read_log(long id, const struct vm_spec *s, struct channel *ch, struct vm_result *res)
{
	struct text t = { 0 }, con = { 0 };
	char path[64];
	FILE *log;
	long code;

	log = fopen(s->console_log, "we");
	if (!log)
		return error("cannot create '%s': %s", s->console_log, strerror(errno));
	snprintf(path, sizeof(path), "jobs/%ld/logs/", id);
	code = lava_http(path, NULL, &t);
	if (code != 200) {
		free(t.s);
		fclose(log);
		if (code == 404)	/* a job canceled before it started has no log */
			return 0;
		return code < 0 ? -1 : error("lava job %ld: its log: HTTP %ld", id, code);
	}
	lava_log_console(t.s, ch, log, &con);
	fclose(log);
	if (con.len)
		console_scan_text(res, con.s, con.len);
	free(con.s);
	free(t.s);
	return 0;
}

static int lava_run(const struct vm_spec *s, struct channel *ch, struct vm_result *res)
{
	struct vm_chain chain = { ch->cb, ch->user, res, s };
	double run_s = s->boot_timeout + s->workload_timeout + DEPLOY_S;
	char health[32] = "", why[400] = "";
	char *def;
	long id;
	int gave_up;

	if (spec_ok(s) < 0)
		return -1;
	def = job_yaml(s);
	res->t_start = mono_now();
	id = submit(def);
	free(def);
	if (id < 0) {
		res->exit = mono_now() - res->t_start;
		res->status = RUN_QEMU_DIED;
		snprintf(res->reason, sizeof(res->reason), "%.500s", error_last());
		return 0;
	}
	res->cmdline = xasprintf("LAVA job %ld at %s (device type %s)", id, lava_conf.url,
				 lava_conf.device_type);
	snprintf(res->host, sizeof(res->host), "lava job %ld", id);
	info("run %s: lava job %ld submitted to %s", s->name, id, lava_conf.url);
	gave_up = wait_job(id, lava_conf.queue_timeout, run_s, health, sizeof(health),
			   why, sizeof(why)) < 0;
	ch->cb = vm_chain_cb;
	ch->user = &chain;
	if (read_log(id, s, ch, res) < 0)
		warning("lava job %ld: no log read back: %s", id, error_last());
	channel_end(ch);
	ch->cb = chain.cb;
	ch->user = chain.user;
	res->exit = mono_now() - res->t_start;
	vm_classify(s, res, ch, 0, 0);
	if (res->status == RUN_AGENT_EXIT || gave_up) {
		/* no done record: LAVA's word on why is the reason */
		res->status = RUN_QEMU_DIED;
		snprintf(res->reason, sizeof(res->reason), "lava job %ld %s: %.400s", id,
			 gave_up ? "given up" : *health ? health : "ended",
			 *why ? why : "(LAVA gave no reason)");
	}
	return 0;
}

const struct backend backend_lava = {
	.name = "lava",
	.run = lava_run,
};
