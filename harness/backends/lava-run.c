/*
 * lava-run.c - runs as LAVA jobs (backend_lava): one run a job, or several
 * (--lava-runs-per-job, lava_run_many), the definition from lava-job.c; the
 * submission, the wait with a progress line and a queue deadline, and the job
 * log read back and cut into its runs: each run's console lines go to its
 * console.log, the records the agent echoes there (kpair.echo=1) through its
 * channel. A run without a done record in a job that ended Incomplete or
 * Canceled is a failed run with LAVA's reason; a run the job never booted is
 * not started (the A/B runs it again), not failed.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../guest/record.h"
#include "backends/vm.h"
#include "lava.h"
#include "util.h"

/* the lab's state is asked this often: a job's end is seen 0.25 s late on average */
#define POLL_S 0.5

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

/* a part's console lines (lava_log_parts) one by one; their number */
static int part_feed(char *lines, struct channel *ch, FILE *log, struct text *con)
{
	char *line, *next;
	int n = 0;

	for (line = lines; line && *line; line = next, n++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		console_line(ch, log, con, line);
	}
	return n;
}

static void parts_release(struct lava_part *parts, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(parts[i].console.s);
	free(parts);
}

int lava_log_console(char *text, struct channel *ch, FILE *log, struct text *con)
{
	struct lava_part *parts = xcalloc(1, sizeof(*parts));
	int n;

	lava_log_parts(text, parts, 1);
	n = part_feed(parts->console.s, ch, log, con);
	parts_release(parts, 1);
	return n;
}

/* job @id's log (GET) into *@out, NULL when the job has none (canceled before it started) */
static int job_log(long id, char **out)
{
	struct text t = { 0 };
	char path[64];
	long code;

	*out = NULL;
	snprintf(path, sizeof(path), "jobs/%ld/logs/", id);
	code = lava_http(path, NULL, &t);
	if (code == 200) {
		*out = t.s;
		return 0;
	}
	free(t.s);
	if (code == 404)
		return 0;
	return code < 0 ? -1 : error("lava job %ld: its log: HTTP %ld", id, code);
}

/* a part of a job's log into the run's console.log, the console scan and the channel */
static int part_read(struct lava_part *part, const struct vm_spec *s, struct channel *ch,
		     struct vm_result *res)
{
	struct text con = { 0 };
	FILE *log;

	log = fopen(s->console_log, "we");
	if (!log)
		return error("cannot create '%s': %s", s->console_log, strerror(errno));
	part_feed(part->console.s, ch, log, &con);
	fclose(log);
	if (con.len)
		console_scan_text(res, con.s, con.len);
	free(con.s);
	return 0;
}
/*
 * lava-job.json in the run's directory as soon as the job is submitted: the
 * lab, the job's id and which of its runs this one is, for a resume after
 * kpair was killed during the wait; lava-job.yaml: the definition as submitted.
 */
static void job_note(const struct vm_spec *s, long id, int part, int nparts, const char *def)
{
	json_t *j = json_pack("{s:s, s:I, s:i, s:i}", "url", lava_conf.url, "id", (json_int_t)id,
			      "part", part, "runs", nparts);
	char *p = lava_run_file(s, NULL, "lava-job.json");

	if (json_dump_file(j, p, JSON_INDENT(2)) < 0)
		warning("cannot write '%s': a resume cannot take lava job %ld back", p, id);
	free(p);
	json_decref(j);
	if (!def)
		return;
	p = lava_run_file(s, NULL, "lava-job.yaml");
	if (write_file_atomic(p, def, strlen(def)) < 0)
		warning("%s", error_last());
	free(p);
}

/*
 * ab resume: the job the interrupted attempt of this run submitted to this
 * lab, if any: it may still run, or have finished while kpair was away. Its
 * id, with the run's part of it in *@part of *@nparts, or -1 (none: submit a new one).
 */
static long reattach(const struct vm_spec *s, int *part, int *nparts)
{
	char *p;
	json_t *j;
	long id = -1;

	*part = 0;
	*nparts = 1;
	if (!s->earlier)
		return -1;
	p = lava_run_file(s, s->earlier, "lava-job.json");
	j = json_load_file(p, 0, NULL);
	free(p);
	if (j && !strcmp(jget_str(j, "url"), lava_conf.url) &&
	    json_is_integer(json_object_get(j, "id")))
		id = (long)json_integer_value(json_object_get(j, "id"));
	if (json_is_integer(json_object_get(j, "runs"))) {
		*part = (int)json_integer_value(json_object_get(j, "part"));
		*nparts = (int)json_integer_value(json_object_get(j, "runs"));
	}
	json_decref(j);
	if (id < 0 || *nparts < 1 || *part < 0 || *part >= *nparts)
		return -1;
	/* said even in an A/B's quiet runs: the run's result is that older job's */
	warning("run %s: lava job %ld was submitted before kpair stopped: waiting for it again",
		s->name, id);
	job_note(s, id, *part, *nparts, NULL);
	return id;
}

/* one run of a job */
struct lava_one {
	const struct vm_spec *s;
	struct channel *ch;
	struct vm_result *res;
	int part;			/* its place in the job's actions */
	char tok[LAVA_TOKEN_LEN + 1];	/* its files' set when kpair serves them, or "" */
	char *qpaths[VM_MAX_DISKS];	/* its disks as qcow2 */
	struct vm_spec q;		/* its spec, with those disks */
};

static void ones_release(struct lava_one *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		lava_disks_remove(r[i].s, r[i].qpaths);
		lava_serve_close(r[i].tok);
		r[i].tok[0] = '\0';
	}
}

/* the runs' images ready (served, disks as qcow2) and their job submitted: its id, or -1 */
static long job_submit(struct lava_one *r, int n)
{
	const struct vm_spec **qs = xcalloc(n, sizeof(*qs));
	char **toks = xcalloc(n, sizeof(*toks));
	char *def = NULL;
	long id = -1;
	int i;

	for (i = 0; i < n; i++) {
		if (lava_serving() && lava_serve_open(r[i].tok) < 0)
			goto out;
		if (lava_disks_qcow2(r[i].s, &r[i].q, r[i].qpaths) < 0)
			goto out;
		qs[i] = &r[i].q;
		toks[i] = r[i].tok;
	}
	def = lava_job_definition_many(qs, n, toks);
	if (!def)
		goto out;
	id = submit(def);
	if (id < 0)
		goto out;
	for (i = 0; i < n; i++)
		job_note(r[i].s, id, i, n, def);
	if (n > 1)
		info("runs %s to %s: lava job %ld submitted to %s", r[0].s->name, r[n - 1].s->name,
		     id, lava_conf.url);
	else
		info("run %s: lava job %ld submitted to %s", r[0].s->name, id, lava_conf.url);
out:
	free(def);
	free(toks);
	free(qs);
	return id;
}

/* run @r's part of job @id's log into its result; @why LAVA's word on a failure */
static void run_finish(struct lava_one *r, struct lava_part *part, long id, int nparts,
		       const char *health, const char *why, int gave_up)
{
	struct vm_chain chain = { r->ch->cb, r->ch->user, r->res, r->s };
	struct channel *ch = r->ch;
	struct vm_result *res = r->res;

	free(res->cmdline);
	res->cmdline = nparts > 1 ?
		xasprintf("LAVA job %ld at %s (device type %s), run %d of %d", id, lava_conf.url,
			  lava_conf.device_type, r->part + 1, nparts) :
		xasprintf("LAVA job %ld at %s (device type %s)", id, lava_conf.url,
			  lava_conf.device_type);
	snprintf(res->where, sizeof(res->where), "lava job %ld", id);
	res->exit = mono_now() - res->t_start;
	if (nparts > 1 && !part->booted) {
		/* the job ended on an earlier run, or before any: this one is not a failure */
		res->not_started = 1;
		res->status = RUN_QEMU_DIED;
		snprintf(res->reason, sizeof(res->reason), "lava job %ld ended before its run %d "
			 "of %d booted", id, r->part + 1, nparts);
		return;
	}
	ch->cb = vm_chain_cb;
	ch->user = &chain;
	if (part_read(part, r->s, ch, res) < 0)
		warning("lava job %ld: no console for run %s: %s", id, r->s->name, error_last());
	channel_end(ch);
	ch->cb = chain.cb;
	ch->user = chain.user;
	vm_classify(r->s, res, ch, 0, 0);
	if (res->status == RUN_AGENT_EXIT || (gave_up && res->status != RUN_OK)) {
		/* no done record: LAVA's word on why is the reason */
		res->status = RUN_QEMU_DIED;
		snprintf(res->reason, sizeof(res->reason), "lava job %ld %s: %.400s", id,
			 gave_up ? "given up" : *health ? health : "ended",
			 *why ? why : *part->error ? part->error : "(LAVA gave no reason)");
	}
}

/* the log of job @id, of @nparts runs, into the results of @r[0..@n) */
static void job_finish(struct lava_one *r, int n, long id, int nparts, const char *health,
		       const char *why, int gave_up)
{
	struct lava_part *parts = xcalloc(nparts, sizeof(*parts));
	char *log = NULL;
	int i;

	if (job_log(id, &log) < 0)
		warning("lava job %ld: no log read back: %s", id, error_last());
	if (log)
		lava_log_parts(log, parts, nparts);
	for (i = 0; i < n; i++)
		run_finish(&r[i], &parts[r[i].part], id, nparts, health, why, gave_up);
	free(log);
	parts_release(parts, nparts);
}

/* @n runs as one job: submitted, waited for, each run's result from its part of the log */
static void job_run(struct lava_one *r, int n)
{
	char health[32] = "", why[400] = "";
	struct sigaction old[2];
	double run_s = 0;
	long id;
	int i, gave_up;

	for (i = 0; i < n; i++) {
		r[i].part = i;
		r[i].res->t_start = mono_now();
		run_s += lava_run_seconds(r[i].s) + LAVA_DEPLOY_S;
	}
	stop_catch(old);	/* from before the submission: no job is left behind by a signal */
	id = job_submit(r, n);
	if (id < 0) {
		ones_release(r, n);
		stop_release(old, -1);
		for (i = 0; i < n; i++) {	/* the lab refused the job: failed runs with its word */
			r[i].res->status = RUN_QEMU_DIED;
			r[i].res->not_started = n > 1;	/* each is tried again alone */
			snprintf(r[i].res->reason, sizeof(r[i].res->reason), "%.500s", error_last());
			r[i].res->exit = mono_now() - r[i].res->t_start;
		}
		return;
	}
	gave_up = wait_job(id, lava_conf.queue_timeout, run_s, health, sizeof(health), why,
			   sizeof(why)) < 0;
	ones_release(r, n);	/* the job is over (or canceled next) */
	stop_release(old, id);
	job_finish(r, n, id, n, health, why, gave_up);
}

/*
 * Several runs, in order: those whose QEMU context (target, memory, machine options) is the
 * same go together as one job, each with its own deploy, boot and monitor. LAVA's fixed cost
 * (scheduling, starting the dispatcher, ending the job) is paid once for them all.
 */
static int lava_run_many(const struct vm_spec *const *s, struct channel *const *ch,
			 struct vm_result *const *res, int n)
{
	struct lava_one *r = xcalloc(n, sizeof(*r));
	char *ctx = NULL, *next;
	int i, m = 0, first = 0;

	for (i = 0; i < n; i++) {
		if (lava_spec_ok(s[i]) < 0) {
			res[i]->status = RUN_SETUP_FAILED;
			snprintf(res[i]->reason, sizeof(res[i]->reason), "%.500s", error_last());
			continue;
		}
		r[m].s = s[i];
		r[m].ch = ch[i];
		r[m].res = res[i];
		m++;
	}
	for (i = 0; i <= m; i++) {
		next = i < m ? lava_job_context(r[i].s) : NULL;
		if (i > first && (i == m || strcmp(ctx, next))) {
			job_run(r + first, i - first);
			first = i;
		}
		free(ctx);
		ctx = next;
	}
	free(r);
	return 0;
}

static int lava_run(const struct vm_spec *s, struct channel *ch, struct vm_result *res)
{
	struct lava_one r = { .s = s, .ch = ch, .res = res };
	char health[32] = "", why[400] = "";
	struct sigaction old[2];
	int part, nparts, gave_up;
	long id;

	if (lava_spec_ok(s) < 0)
		return -1;
	res->t_start = mono_now();
	id = reattach(s, &part, &nparts);
	if (id < 0) {
		job_run(&r, 1);
		return 0;
	}
	stop_catch(old);
	gave_up = wait_job(id, lava_conf.queue_timeout,
			   nparts * ((double)lava_run_seconds(s) + LAVA_DEPLOY_S), health,
			   sizeof(health), why, sizeof(why)) < 0;
	stop_release(old, id);
	r.part = part;
	job_finish(&r, 1, id, nparts, health, why, gave_up);
	if (res->not_started) {	/* that job ended before this run booted: a job of its own */
		info("run %s: lava job %ld ended before it booted: submitting it again", s->name, id);
		vm_result_release(res);
		vm_result_init(res);
		res->t_start = mono_now();
		job_run(&r, 1);
	}
	return 0;
}

static int lava_batch(void)
{
	return lava_conf.runs_per_job;
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
	.run_many = lava_run_many,
	.batch = lava_batch,
};
