/*
 * lava-job.c - the LAVA job of one run or of several (backend_lava): QEMU as
 * kpair's own backend starts it, through the qemu device type's context (arch,
 * memory, extra_options), then for each run a deploy of its images, a boot and
 * a monitor that follows the console from the agent's hello to the line it
 * prints after its last record (REC_ECHO_END). Runs of one job share the
 * context: lava_job_context() tells which may go together. Also the run's
 * disks as qcow2 for the lab, and the job's log cut into its runs.
 */
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

/* qemu_add_fn onto the extra_options list: "-M q35", "-nodefaults" */
static void extra_words(void *ctx, const char *opt, const char *val)
{
	if (val)
		yaml_item(ctx, 2, "%s %s", opt, val);
	else
		yaml_item(ctx, 2, "%s", opt);
}

int lava_is_qcow2(const char *path)
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
	int gz = *tok && !strncmp(label, "disk", 4) && !lava_is_qcow2(path);
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

int lava_spec_ok(const struct vm_spec *s)
{
	if (strpbrk(s->append, "\"\\'{}"))
		return error("kernel command line '%s': quotes, backslashes and braces cannot pass "
			     "through LAVA's QEMU command line", s->append);
	if (s->host_root)
		return error("the lava backend cannot share the host's / with the guest");
	return 0;
}

/* seconds a run may take in the lab once booting: its boot and workload, and a minute */
unsigned long long lava_run_seconds(const struct vm_spec *s)
{
	return (unsigned long long)(s->boot_timeout + s->workload_timeout) + 60;
}

char *lava_job_context(const struct vm_spec *s)
{
	const struct target *t = s->target;
	/* no -m: the device type takes the memory from the context */
	struct qemu_machine m = { t, s->accel, s->icount, 0, s->cpus, NULL };
	struct text y = { 0 };

	text_add(&y, "context:\n  arch: ");
	yaml_str(&y, t->arch);
	text_add(&y, "\n  memory: %llu\n  no_kvm: 'true'\n  failure_retry: 1\n  boot_retry: 1\n"
		 "  extra_options:\n", (unsigned long long)(s->memory >> 20));
	qemu_args_machine(&m, extra_words, &y);
	yaml_item(&y, 2, "-serial stdio");
	/* the results port must be open for the agent; the records come back on the console */
	qemu_args_results_port(t, "file,id=res,path=/dev/null", extra_words, &y);
	return y.s;
}

/* run @s's deploy, boot and test actions; -1 with an error */
static int run_actions(struct text *y, const struct vm_spec *s, const char *tok)
{
	const struct target *t = s->target;
	unsigned long long run_s = lava_run_seconds(s);
	char *arg, label[16];
	int i, bad;

	text_add(y, "- deploy:\n    to: tmpfs\n    timeout:\n      seconds: %d\n"
		 "    images:\n", LAVA_DEPLOY_S);
	arg = xasprintf("-kernel {kernel} -append \"%s kpair.echo=1\"", s->append);
	bad = image(y, tok, "kernel", s->kernel, arg) < 0;
	free(arg);
	bad |= image(y, tok, "initrd", s->initrd, "-initrd {initrd}") < 0;
	for (i = 0; i < s->ndisks && !bad; i++) {
		snprintf(label, sizeof(label), "disk%d", i);
		/* PCI slots after whatever the device type adds: /dev/vda is disk0 */
		arg = xasprintf("-drive format=%s,file={%s},if=none,id=%s,cache=%s%s "
				"-device %s,drive=%s,addr=0x%x",
				lava_is_qcow2(s->disks[i].path) ? "qcow2" : "raw", label, label,
				s->disks[i].cache,
				s->disks[i].readonly ? ",readonly=on" : "", t->blk_dev, label,
				0x10 + i);
		bad |= image(y, tok, label, s->disks[i].path, arg) < 0;
		free(arg);
	}
	if (bad)
		return -1;
	text_add(y, "- boot:\n    method: qemu\n    media: tmpfs\n"
		 "    timeout:\n      seconds: %llu\n", run_s);
	/*
	 * the monitor keeps the run on the console from hello to the line after the last record:
	 * the done record is logged whole before LAVA goes on (to the next run's boot, or the end)
	 */
	text_add(y, "- test:\n    timeout:\n      seconds: %llu\n    monitors:\n"
		 "    - name: kpair\n      start: '%s\\{\"type\":\"hello\"'\n"
		 "      end: '%s'\n"
		 "      pattern: '%s\\{\"type\":\"sample\",\"seq\":[0-9]+,\"metric\":"
		 "\"(?P<test_case_id>[^\"]+)\"'\n", run_s, REC_ECHO_PREFIX, REC_ECHO_END,
		 REC_ECHO_PREFIX);
	return 0;
}

char *lava_job_definition_many(const struct vm_spec *const *s, int n, char *const *tok)
{
	unsigned long long job_s = 0, run_max = 0;
	struct text y = { 0 };
	char *arg;
	int i;

	for (i = 0; i < n; i++) {
		job_s += lava_run_seconds(s[i]) + LAVA_DEPLOY_S;
		if (lava_run_seconds(s[i]) > run_max)
			run_max = lava_run_seconds(s[i]);
	}
	text_add(&y, "job_name: ");
	arg = n > 1 ? xasprintf("kpair %s and %d more", s[0]->name, n - 1) :
		      xasprintf("kpair %s", s[0]->name);
	yaml_str(&y, arg);
	free(arg);
	text_add(&y, "\ndevice_type: ");
	yaml_str(&y, lava_conf.device_type);
	text_add(&y, "\nvisibility: public\npriority: medium\n"
		 "timeouts:\n  job:\n    seconds: %llu\n  connection:\n    seconds: %llu\n",
		 job_s, run_max);
	arg = lava_job_context(s[0]);
	text_add(&y, "%s", arg);
	free(arg);
	text_add(&y, "actions:\n");
	for (i = 0; i < n; i++)
		if (run_actions(&y, s[i], tok[i]) < 0) {
			free(y.s);
			return NULL;
		}
	return y.s;
}

char *lava_job_definition(const struct vm_spec *s, const char *tok)
{
	char *t = (char *)tok;

	return lava_job_definition_many(&s, 1, &t);
}

/* @name in the run's directory (where console.log is) */
char *lava_run_file(const struct vm_spec *s, const char *dir, const char *name)
{
	const char *slash = strrchr(s->console_log, '/');

	if (dir)
		return xasprintf("%s/%s", dir, name);
	if (!slash)
		return xstrdup(name);
	return xasprintf("%.*s/%s", (int)(slash - s->console_log), s->console_log, name);
}

/*
 * The run's disks as qcow2 files in the run's directory (@q, the spec's copy, points at them):
 * LAVA copies an image whole into the worker's tmpfs, holes and all (and gunzips a served
 * one), so a sparse raw disk costs its nominal size on every job; a qcow2 of a fresh file
 * system holds its written blocks alone. The same bytes reach the guest: the mkfs and its
 * geometry are the run's own.
 */
int lava_disks_qcow2(const struct vm_spec *s, struct vm_spec *q, char **paths)
{
	int i;

	*q = *s;
	for (i = 0; i < s->ndisks; i++) {
		const char *argv[] = { "qemu-img", "convert", "-q", "-f", "raw", "-O", "qcow2",
				       s->disks[i].path, NULL, NULL };
		struct spawn_result r = SPAWN_RESULT_INIT;

		char name[32];

		snprintf(name, sizeof(name), "lava-disk%d.qcow2", i);
		paths[i] = lava_run_file(s, NULL, name);
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

void lava_disks_remove(const struct vm_spec *s, char **paths)
{
	int i;

	for (i = 0; i < s->ndisks; i++) {
		if (paths[i])
			unlink(paths[i]);
		free(paths[i]);
		paths[i] = NULL;
	}
}

/* "start: 5 boot-qemu-image (timeout ...) [common]": 5, a top-level action; else 0 */
static int action_start(const char *msg)
{
	char *end;
	long n;

	if (strncmp(msg, "start: ", 7))
		return 0;
	n = strtol(msg + 7, &end, 10);
	return end != msg + 7 && *end == ' ' ? (int)n : 0;
}

int lava_log_parts(char *text, struct lava_part *parts, int n)
{
	int part = 0, k, last = -1;
	char *line, *next;
	json_t *j;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "- {", 3))
			continue;
		j = json_loads(line + 2, 0, NULL);
		if (!json_is_object(j)) {
			json_decref(j);
			continue;
		}
		k = action_start(jget_str(j, "msg"));
		/* run p's actions are 3p+1 (deploy), 3p+2 (boot), 3p+3 (test) */
		if (!strcmp(jget_str(j, "lvl"), "info") && k > 0 && (k - 1) / 3 < n) {
			if (k % 3 == 2) {
				part = (k - 1) / 3;
				parts[part].booted = 1;
			}
			if ((k - 1) / 3 > last)
				last = (k - 1) / 3;
			parts[(k - 1) / 3].reached = 1;
		}
		/* after the monitor's end match, LAVA logs the console as feedback */
		if (!strcmp(jget_str(j, "lvl"), "target") || !strcmp(jget_str(j, "lvl"), "feedback"))
			text_add(&parts[part].console, "%s\n", jget_str(j, "msg"));
		if (!strcmp(jget_str(j, "lvl"), "error") && !*parts[last < 0 ? 0 : last].error)
			snprintf(parts[last < 0 ? 0 : last].error, sizeof(parts[0].error), "%s",
				 jget_str(j, "msg"));
		json_decref(j);
	}
	return last + 1;
}
