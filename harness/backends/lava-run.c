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
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../guest/record.h"
#include "backends/qemu-args.h"
#include "backends/vm.h"
#include "lava.h"
#include "spawn.h"
#include "util.h"
#include "yaml.h"

#define POLL_S 2.0
#define DEPLOY_S 600	/* LAVA's copies of the images, on top of the boot and workload */

/* qemu_add_fn onto the extra_options list: "-M q35", "-nodefaults" */
static void extra_words(void *ctx, const char *opt, const char *val)
{
	if (val)
		yaml_item(ctx, 2, "%s %s", opt, val);
	else
		yaml_item(ctx, 2, "%s", opt);
}

static int is_qcow2(const char *path)
{
	size_t n = strlen(path);

	return n > 6 && !strcmp(path + n - 6, ".qcow2");
}

/*
 * image @label: served by kpair under @tok (--lava-serve; a disk gzip-compressed as it goes)
 * or a file:// URL; -1 with an error
 */
static int image(struct text *y, const char *tok, const char *label, const char *path,
		 const char *arg)
{
	int gz = *tok && !strncmp(label, "disk", 4) && !is_qcow2(path);
	char *url = *tok ? lava_serve_add(tok, label, path) : file_url(path);

	if (!url)
		return -1;
	if (gz) {
		char *u = xasprintf("%s.gz", url);

		free(url);
		url = u;
	}
	text_add(y, "      %s:\n        url: ", label);
	yaml_str(y, url);
	if (gz)
		text_add(y, "\n        compression: gz");
	text_add(y, "\n        image_arg: ");
	yaml_str(y, arg);
	text_add(y, "\n");
	free(url);
	return 0;
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

char *lava_job_definition(const struct vm_spec *s, const char *tok)
{
	const struct target *t = s->target;
	unsigned long long run_s = (unsigned long long)(s->boot_timeout + s->workload_timeout) + 60;
	/* no -m: the device type takes the memory from the context */
	struct qemu_machine m = { t, s->accel, s->icount, 0, s->cpus, NULL };
	struct text y = { 0 };
	char *arg, label[16];
	int i, bad;

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
	qemu_args_machine(&m, extra_words, &y);
	yaml_item(&y, 2, "-serial stdio");
	/* the results port must be open for the agent; the records come back on the console */
	qemu_args_results_port(t, "file,id=res,path=/dev/null", extra_words, &y);
	text_add(&y, "actions:\n- deploy:\n    to: tmpfs\n    timeout:\n      seconds: %d\n"
		 "    images:\n", DEPLOY_S);
	arg = xasprintf("-kernel {kernel} -append \"%s kpair.echo=1\"", s->append);
	bad = image(&y, tok, "kernel", s->kernel, arg) < 0;
	free(arg);
	bad |= image(&y, tok, "initrd", s->initrd, "-initrd {initrd}") < 0;
	for (i = 0; i < s->ndisks && !bad; i++) {
		snprintf(label, sizeof(label), "disk%d", i);
		/* PCI slots after whatever the device type adds: /dev/vda is disk0 */
		arg = xasprintf("-drive format=%s,file={%s},if=none,id=%s,cache=%s%s "
				"-device %s,drive=%s,addr=0x%x",
				is_qcow2(s->disks[i].path) ? "qcow2" : "raw", label, label,
				s->disks[i].cache,
				s->disks[i].readonly ? ",readonly=on" : "", t->blk_dev, label,
				0x10 + i);
		bad |= image(&y, tok, label, s->disks[i].path, arg) < 0;
		free(arg);
	}
	if (bad) {
		free(y.s);
		return NULL;
	}
	text_add(&y, "- boot:\n    method: qemu\n    media: tmpfs\n"
		 "    timeout:\n      seconds: %llu\n", run_s);
	/* the monitor keeps the job on the console from hello to done */
	text_add(&y, "- test:\n    timeout:\n      seconds: %llu\n    monitors:\n"
		 "    - name: kpair\n      start: '%s\\{\"type\":\"hello\"'\n"
		 "      end: '%s\\{\"type\":\"done\"'\n"
		 "      pattern: '%s\\{\"type\":\"sample\",\"seq\":[0-9]+,\"metric\":"
		 "\"(?P<test_case_id>[^\"]+)\"'\n", run_s, REC_ECHO_PREFIX, REC_ECHO_PREFIX, REC_ECHO_PREFIX);
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

/* SIGINT or SIGTERM during a wait: the job is canceled in the lab, then kpair goes */
static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void stop_catch(struct sigaction old[2])
{
	struct sigaction sa = { .sa_handler = on_stop };	/* no SA_RESTART: usleep wakes */

	sigemptyset(&sa.sa_mask);
	stop_sig = 0;
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
	/* a signal kpair was started with ignored (a background job of a script) stays so */
	if (old[0].sa_handler == SIG_IGN)
		sigaction(SIGINT, &old[0], NULL);
	if (old[1].sa_handler == SIG_IGN)
		sigaction(SIGTERM, &old[1], NULL);
}

static void stop_release(const struct sigaction old[2], long id)
{
	int sig = stop_sig;

	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	if (!sig)
		return;
	if (id >= 0) {
		cancel(id);
		fprintf(stderr, "\nkpair: %s: lava job %ld canceled\n", strsignal(sig), id);
	}
	raise(sig);
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
		if (stop_sig)
			return -1;
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

	if (strncmp(msg, REC_ECHO_PREFIX, strlen(REC_ECHO_PREFIX))) {
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
		channel_feed(ch, rec.s + strlen(REC_ECHO_PREFIX), rec.len - strlen(REC_ECHO_PREFIX));
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

/* the first error LAVA logged (the cause; the later ones say what it broke) into @why */
static void log_error(const char *text, char *why, size_t wlen)
{
	const char *line, *end;
	json_t *j;

	for (line = text; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (strncmp(line, "- {", 3) || !memmem(line, end ? (size_t)(end - line) : strlen(line),
							"\"lvl\": \"error\"", 15))
			continue;
		j = json_loadb(line + 2, end ? (size_t)(end - line - 2) : strlen(line + 2), 0, NULL);
		if (json_is_string(json_object_get(j, "msg")))
			snprintf(why, wlen, "%s", jget_str(j, "msg"));
		json_decref(j);
		if (*why)
			return;
	}
}

/*
 * job @id's log into console.log, the console scan and the channel; when LAVA
 * gave no failure comment, the log's first error into @why
 */
static int read_log(long id, const struct vm_spec *s, struct channel *ch, struct vm_result *res,
		    char *why, size_t wlen)
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
	if (!*why)
		log_error(t.s, why, wlen);
	lava_log_console(t.s, ch, log, &con);
	fclose(log);
	if (con.len)
		console_scan_text(res, con.s, con.len);
	free(con.s);
	free(t.s);
	return 0;
}

/* @name in the run's directory (where console.log is) */
static char *run_file(const struct vm_spec *s, const char *dir, const char *name)
{
	const char *slash = strrchr(s->console_log, '/');

	if (dir)
		return xasprintf("%s/%s", dir, name);
	if (!slash)
		return xstrdup(name);
	return xasprintf("%.*s/%s", (int)(slash - s->console_log), s->console_log, name);
}

/*
 * lava-job.json in the run's directory as soon as the job is submitted: the
 * lab and the job's id, for a resume after kpair was killed during the wait;
 * lava-job.yaml: the definition as submitted.
 */
static void job_note(const struct vm_spec *s, long id, const char *def)
{
	json_t *j = json_pack("{s:s, s:I}", "url", lava_conf.url, "id", (json_int_t)id);
	char *p = run_file(s, NULL, "lava-job.json");

	if (json_dump_file(j, p, JSON_INDENT(2)) < 0)
		warning("cannot write '%s': a resume cannot take lava job %ld back", p, id);
	free(p);
	json_decref(j);
	if (!def)
		return;
	p = run_file(s, NULL, "lava-job.yaml");
	if (write_file_atomic(p, def, strlen(def)) < 0)
		warning("%s", error_last());
	free(p);
}

/*
 * ab resume: the job the interrupted attempt of this run submitted to this
 * lab, if any: it may still run, or have finished while kpair was away. Its
 * id, or -1 (none: submit a new one).
 */
static long reattach(const struct vm_spec *s)
{
	char *p;
	json_t *j;
	long id = -1;

	if (!s->earlier)
		return -1;
	p = run_file(s, s->earlier, "lava-job.json");
	j = json_load_file(p, 0, NULL);
	free(p);
	if (j && !strcmp(jget_str(j, "url"), lava_conf.url) &&
	    json_is_integer(json_object_get(j, "id")))
		id = (long)json_integer_value(json_object_get(j, "id"));
	json_decref(j);
	if (id < 0)
		return -1;
	/* said even in an A/B's quiet runs: the run's result is that older job's */
	warning("run %s: lava job %ld was submitted before kpair stopped: waiting for it again",
		s->name, id);
	job_note(s, id, NULL);
	return id;
}

/*
 * The run's disks as qcow2 files in the run's directory (@q, the spec's copy, points at them):
 * LAVA copies an image whole into the worker's tmpfs, holes and all (and gunzips a served
 * one), so a sparse raw disk costs its nominal size on every job; a qcow2 of a fresh file
 * system holds its written blocks alone. The same bytes reach the guest: the mkfs and its
 * geometry are the run's own.
 */
static int disks_qcow2(const struct vm_spec *s, struct vm_spec *q, char **paths)
{
	int i;

	*q = *s;
	for (i = 0; i < s->ndisks; i++) {
		const char *argv[] = { "qemu-img", "convert", "-q", "-f", "raw", "-O", "qcow2",
				       s->disks[i].path, NULL, NULL };
		struct spawn_result r = SPAWN_RESULT_INIT;

		char name[32];

		snprintf(name, sizeof(name), "lava-disk%d.qcow2", i);
		paths[i] = run_file(s, NULL, name);
		argv[8] = paths[i];
		if (spawn_run(argv, 300000, &r) < 0 || r.exit_code) {
			error("qemu-img convert '%s' to qcow2 for the lab: %s", s->disks[i].path,
			      r.timed_out ? "timed out" : *r.err ? r.err : "failed");
			spawn_result_release(&r);
			return -1;
		}
		spawn_result_release(&r);
		q->disks[i].path = paths[i];
	}
	return 0;
}

static void disks_qcow2_remove(const struct vm_spec *s, char **paths)
{
	int i;

	for (i = 0; i < s->ndisks; i++) {
		if (paths[i])
			unlink(paths[i]);
		free(paths[i]);
		paths[i] = NULL;
	}
}

static long submit_run(const struct vm_spec *s, struct vm_result *res, char *tok, char **qpaths)
{
	struct vm_spec q;
	char *def;
	long id;

	if (lava_serving() && lava_serve_open(tok) < 0)
		return -1;
	if (disks_qcow2(s, &q, qpaths) < 0)
		return -1;
	def = lava_job_definition(&q, tok);
	if (!def)
		return -1;
	id = submit(def);
	if (id < 0) {
		res->status = RUN_QEMU_DIED;
		snprintf(res->reason, sizeof(res->reason), "%.500s", error_last());
	} else {
		job_note(s, id, def);
		info("run %s: lava job %ld submitted to %s", s->name, id, lava_conf.url);
	}
	free(def);
	return id;
}

static int lava_run(const struct vm_spec *s, struct channel *ch, struct vm_result *res)
{
	struct vm_chain chain = { ch->cb, ch->user, res, s };
	double run_s = s->boot_timeout + s->workload_timeout + DEPLOY_S;
	char health[32] = "", why[400] = "", tok[LAVA_TOKEN_LEN + 1] = "";
	char *qpaths[VM_MAX_DISKS] = { NULL };
	struct sigaction old[2];
	long id;
	int gave_up;

	if (spec_ok(s) < 0)
		return -1;
	res->t_start = mono_now();
	stop_catch(old);	/* from before the submission: no job is left behind by a signal */
	id = reattach(s);
	if (id < 0)
		id = submit_run(s, res, tok, qpaths);
	if (id < 0) {
		disks_qcow2_remove(s, qpaths);
		stop_release(old, -1);
		lava_serve_close(tok);
		if (res->status != RUN_QEMU_DIED)
			return -1;
		res->exit = mono_now() - res->t_start;
		return 0;	/* the lab refused the job: a failed run with its word */
	}
	res->cmdline = xasprintf("LAVA job %ld at %s (device type %s)", id, lava_conf.url,
				 lava_conf.device_type);
	snprintf(res->where, sizeof(res->where), "lava job %ld", id);
	gave_up = wait_job(id, lava_conf.queue_timeout, run_s, health, sizeof(health),
			   why, sizeof(why)) < 0;
	disks_qcow2_remove(s, qpaths);	/* the job is over (or canceled next) */
	stop_release(old, id);
	lava_serve_close(tok);
	ch->cb = vm_chain_cb;
	ch->user = &chain;
	if (read_log(id, s, ch, res, why, sizeof(why)) < 0)
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
	.usage = lava_usage,
	.opts = lava_opts,
	.option = lava_option,
	.preflight = lava_preflight,
	.plan_save = lava_conf_save,
	.plan_load = lava_plan_load,
	.command = lava_command,
	.run = lava_run,
};
