/*
 * lava.h - the lava backend: each run is one LAVA job on a lab's QEMU device,
 * submitted through LAVA's REST API (v0.2) with libcurl. The run's kernel,
 * initramfs and scratch disk go to the worker as file:// URLs (a worker on
 * this host, or one that sees the same paths), or over HTTP from kpair itself
 * (--lava-serve, lava-serve.c); the guest's records come back
 * from the job log, where the agent echoes them (kpair.echo=1), and go
 * through the same strict channel parser as a local run's.
 */
#ifndef KPAIR_LAVA_H
#define KPAIR_LAVA_H

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>

#include "backends/vm.h"
#include "util.h"

struct lava_conf {
	const char *url;		/* the lab's base URL, e.g. http://lab:8007/ */
	const char *token_file;		/* 0600 file holding the API token */
	const char *device_type;	/* "qemu" unless told */
	int insecure;			/* TLS peer and host not verified (--lava-insecure) */
	double queue_timeout;		/* seconds a job may wait to start (--lava-queue-timeout) */
	const char *serve;		/* ADDR:PORT kpair serves the images at (--lava-serve) */
	const char *serve_url;		/* the URL workers reach it at (--lava-serve-url) */
	int runs_per_job;		/* an A/B's runs a job (--lava-runs-per-job) */
};
/* an A/B's runs a LAVA job unless told: each its own deploy, boot and monitor */
#define LAVA_RUNS_PER_JOB 10
extern struct lava_conf lava_conf;
/* the lab's options onto a rerun command line (backend_lava.command) */
void lava_command(struct text *t);

/* the lava backend's options (--lava-url ...): their indexes in lava_opts[] */
enum {
	LAVA_OPT_URL,
	LAVA_OPT_TOKEN_FILE,
	LAVA_OPT_DEVICE_TYPE,
	LAVA_OPT_INSECURE,
	LAVA_OPT_QUEUE_TIMEOUT,
	LAVA_OPT_SERVE,
	LAVA_OPT_SERVE_URL,
	LAVA_OPT_RUNS_PER_JOB,
	LAVA_OPT_LAST = LAVA_OPT_RUNS_PER_JOB,
};
/* the options and their usage lines, for backend_lava */
extern const struct backend_opt lava_opts[];
extern const char lava_usage[];

/* lava_opts[@i] given: into lava_conf; -1 with an error if its value is bad */
int lava_option(int i, const char *arg);
/*
 * Before any run: the URL and token file are given, the token file is 0600,
 * the server answers, takes the token and knows the device type. -1 with an
 * error that says which.
 */
int lava_preflight(void);
/*
 * --lava-serve: start serving (from lava_preflight). A run's files are a set
 * under a random token: lava_serve_open() makes one, lava_serve_add() puts a
 * file in it and gives its URL (NULL with an error), lava_serve_close() ends
 * it. lava_serving() is true once the server runs.
 */
#define LAVA_TOKEN_LEN 32
int lava_serve_start(void);
int lava_serve_open(char tok[LAVA_TOKEN_LEN + 1]);
char *lava_serve_add(const char *tok, const char *label, const char *path);
void lava_serve_close(const char *tok);
int lava_serving(void);
/* a request path the server would look up: "/<token>/<label>" */
int lava_serve_path_ok(const char *url);

/* "lava_url", "lava_token_file", "lava_device_type" into / from a plan (ab resume) */
void lava_conf_save(json_t *plan);
void lava_conf_load(json_t *plan);
/* the same, then lava_preflight: a resumed A/B talks to the same lab, checked again */
int lava_plan_load(json_t *plan);


/* for lava-run.c: one request under api/v0.2/ (POST when @body), its HTTP code or -1 */
struct text;
long lava_http(const char *path, const char *body, struct text *out);
/* GET as a JSON object (new reference), NULL with an error; *code the HTTP code or -1 */
json_t *lava_get(const char *path, const char *what, long *code);

/*
 * A LAVA job log (YAML, one "- {dt, lvl, msg}" flow mapping a line; @text is
 * changed): its console lines (lvl target or feedback) to @log and @con, the
 * records the agent echoed there into @ch. Returns the number of console lines.
 */
struct channel;
int lava_log_console(char *text, struct channel *ch, FILE *log, struct text *con);

struct vm_spec;
#define LAVA_DEPLOY_S 600	/* LAVA's copies of a run's images, on top of its boot and workload */
/*
 * The LAVA job of @n runs (lava-job.c): the context of the first (the same for all: see
 * lava_job_context), then each run's deploy, boot and monitor; its images file:// URLs, or
 * under @tok[i] when kpair serves them (""); NULL with an error. lava_job_definition: one run.
 */
char *lava_job_definition_many(const struct vm_spec *const *s, int n, char *const *tok);
char *lava_job_definition(const struct vm_spec *s, const char *tok);
/* the job's context for @s (arch, memory, QEMU's options); runs with the same go in one job */
char *lava_job_context(const struct vm_spec *s);
/* @s can run in a lab (its command line passes LAVA's); -1 with an error */
int lava_spec_ok(const struct vm_spec *s);
/* a run's seconds in the lab from its boot: its boot and workload deadlines and a minute */
unsigned long long lava_run_seconds(const struct vm_spec *s);
int lava_is_qcow2(const char *path);
/* @name in the run's directory (where its console.log is), or in @dir (caller frees) */
char *lava_run_file(const struct vm_spec *s, const char *dir, const char *name);
/*
 * the run's disks as qcow2 files in its directory, their paths in @paths, @q a copy of @s
 * with them; -1 with an error. lava_disks_remove: those files gone, @paths freed.
 */
int lava_disks_qcow2(const struct vm_spec *s, struct vm_spec *q, char **paths);
void lava_disks_remove(const struct vm_spec *s, char **paths);

/*
 * A job's log cut into its runs (lava_log_parts): the console lines from each run's boot
 * on (LAVA's "start: N" lines: run p's actions are 3p+1 deploy, 3p+2 boot, 3p+3 test), whether
 * its actions began and its boot did, and the first error LAVA logged while it was the last
 * run reached.
 */
struct lava_part {
	struct text console;	/* its console lines, LAVA's messages as logged */
	int reached, booted;
	char error[400];
};
/* @text (changed) into @parts[0..@n), zeroed by the caller; the number of runs reached */
int lava_log_parts(char *text, struct lava_part *parts, int n);

#endif
