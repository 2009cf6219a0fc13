/*
 * export-kcidb.c - kpair export kcidb: kpair's results as KCIDB v5 JSON
 * (kernelci/kcidb-io, schema v5.0). A kernel is a checkout (its source: a
 * Debian source version, or a tree with its patches) and a build (the image
 * kpair booted); a run is a test `kpair.<workload>` with its status, times,
 * host and console excerpt and every raw sample in misc, plus one test
 * `kpair.<workload>.<metric>` per metric with the run's value as its number.
 * An A/B directory adds one test per metric `kpair.<workload>.ab.<metric>`
 * (status from the verdict, number the ratio patched/stock, misc the whole
 * comparison.json entry) and one for the A/B as a whole.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/vm.h"
#include "compare.h"
#include "export.h"
#include "jfile.h"
#include "stats.h"
#include "util.h"
#include "yaml.h"

#include "export-kcidb.h"

/* append @o (stolen) to @list unless an object with its id is already there */
void kc_add(struct kcidb *k, json_t *list, json_t *o)
{
	const char *id = json_string_value(json_object_get(o, "id"));

	if (json_object_get(k->seen, id)) {
		json_decref(o);
		return;
	}
	json_object_set_new(k->seen, id, json_true());
	json_array_append_new(list, o);
}

/* @s with every character outside [A-Za-z0-9_-] as '_': one segment of a KCIDB test path */
char *kc_path_seg(const char *s)
{
	char *p, *out = xstrdup(*s ? s : "_");

	for (p = out; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *p))
			*p = '_';
	return out;
}

/* a KCIDB architecture (the kernel's ARCH) from a Debian one */
static const char *kernel_arch(const char *debian)
{
	if (!strcmp(debian, "amd64"))
		return "x86_64";
	if (!strcmp(debian, "armhf") || !strcmp(debian, "armel"))
		return "arm";
	return debian;	/* i386, arm64 */
}

/* {name, url} of @dir/@name when it exists, appended to @list */
void kc_add_file(json_t *list, const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *url;

	if (path_exists(path)) {
		url = file_url(path);
		json_array_append_new(list, json_pack("{s:s, s:s}", "name", name, "url", url));
		free(url);
	}
	free(path);
}

/*
 * The checkout and build of the kernel object at @base of @f ("kernel" of a
 * result.json, "sides.stock.kernel" of a comparison.json, as kernel.json);
 * the build's id goes to *build_id (caller frees).
 */
int kc_add_kernel(struct kcidb *k, struct jfile *f, const char *base, char **build_id)
{
	json_t *kern = jobj(f, base, 1), *o, *patches, *p;
	const char *id = kstr(f, base, "id", 1), *release = kstr(f, base, "release", 1);
	const char *arch = kstr(f, base, "arch", 1), *sha = kstr(f, base, "image_sha256", 0);
	const char *type = kstr(f, base, "source.type", 0);
	const char *version = kstr(f, base, "source.version", 0);
	const char *package = kstr(f, base, "source.package", 0);
	const char *tree = kstr(f, base, "source.source", 0);
	int debian = type && !strcmp(type, "debian-package") && version;
	char *checkout, *comment, *config, field[160];
	struct text pid = { 0 };
	size_t i;

	snprintf(field, sizeof(field), "%s.arch", base);
	if (arch && strspn(arch, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(arch))
		jbad(f, field, "not a Debian architecture name");
	if (f->bad)
		return -1;
	patches = jget(kern, "source.patches");
	if (debian) {
		/* linux-image-*-unsigned are built from Debian's linux source package */
		checkout = xasprintf("kpair:debian:linux_%s", version);
		comment = xasprintf("Debian linux %s (%s)", version, package ? package : id);
		config = xasprintf("debian %s", package ? package : id);
	} else {
		text_add(&pid, "kpair:%s:%s", tree ? tree : id, version ? version : release);
		json_array_foreach(json_is_array(patches) ? patches : NULL, i, p) {
			const char *ps = json_string_value(json_object_get(p, "sha256"));

			if (!ps || strlen(ps) != 64 || strspn(ps, "0123456789abcdef") != 64) {
				free(pid.s);
				return error("'%s': %s.source.patches.%zu.sha256: missing or not a "
					     "sha256", f->path, base, i);
			}
			text_add(&pid, "+%.12s", ps);
		}
		checkout = pid.s;
		comment = xasprintf("%s %s", tree ? tree : id, version ? version : release);
		config = xstrdup("tinyconfig + kpair fragment");
	}
	o = json_pack("{s:s, s:s, s:s, s:b, s:s, s:{s:O*}}", "id", checkout, "origin", ORIGIN,
		      "comment", comment, "valid", 1, "tree_name", debian ? "debian" : tree ? tree : id,
		      "misc", "source", jget(kern, "source"));
	if (!json_array_size(patches))
		json_object_set_new(o, "patchset_hash", json_string(""));	/* none applied */
	kc_add(k, k->checkouts, o);

	*build_id = sha ? xasprintf("kpair:%s:%.12s", id, sha) : xasprintf("kpair:%s", id);
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:O}}",
		      "id", *build_id, "origin", ORIGIN, "checkout_id", checkout,
		      "architecture", kernel_arch(arch), "config_name", config,
		      "comment", release, "status", "PASS", "misc", "kernel_id", id, "kernel", kern);
	if (json_is_number(jget(kern, "source.build_s")))
		json_object_set_new(o, "duration", json_real(json_number_value(jget(kern, "source.build_s"))));
	kc_add(k, k->builds, o);
	free(checkout);
	free(comment);
	free(config);
	return 0;
}

/* KCIDB test status of a kpair run status (README: kpair export kcidb) */
const char *kc_run_status(const char *status)
{
	static const struct { const char *kpair, *kcidb; } map[] = {
		{ "ok", "PASS" },
		/* the kernel did not do what it should: the tested code is faulty */
		{ "kernel-panic", "FAIL" }, { "boot-timeout", "FAIL" }, { "workload-timeout", "FAIL" },
		/* the test itself broke: the kernel's status is unknown */
		{ "agent-exit", "ERROR" }, { "bad-record", "ERROR" }, { "workload-failed", "ERROR" },
		{ "store-failed", "ERROR" },
		/* the harness could not run it */
		{ "setup-failed", "MISS" }, { "qemu-died", "MISS" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(status, map[i].kpair))
			return map[i].kcidb;
	return NULL;
}

/* the leading part of @s that fits log_excerpt, cut at a UTF-8 character boundary */
static json_t *excerpt(const char *s)
{
	size_t n = strlen(s);

	if (n > EXCERPT_MAX) {
		n = EXCERPT_MAX;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return json_stringn(s, n);
}

/* { metric: {unit, values: [...]} } in the order of the samples (new reference) */
static json_t *by_metric(const char *dir, json_t *samples)
{
	json_t *m = json_object(), *rec;
	size_t i;

	json_array_foreach(samples, i, rec) {
		const char *name = json_string_value(json_object_get(rec, "metric"));
		const char *unit = json_string_value(json_object_get(rec, "unit"));
		json_t *e = json_object_get(m, name);

		if (!e) {
			e = json_pack("{s:s, s:[]}", "unit", unit, "values");
			json_object_set_new(m, name, e);
		} else if (strcmp(unit, json_string_value(json_object_get(e, "unit")))) {
			error("'%s/samples.jsonl': metric %s: unit '%s' after '%s'", dir, name, unit,
			      json_string_value(json_object_get(e, "unit")));
			json_decref(m);
			return NULL;
		}
		json_array_append(json_object_get(e, "values"), json_object_get(rec, "value"));
	}
	return m;
}

/* the run's value of a metric: the one sample, or the median of several (as compare.c) */
static double run_value(json_t *values)
{
	size_t i, n = json_array_size(values);
	double *v = xcalloc(n ? n : 1, sizeof(double)), r;
	struct summary s;
	json_t *x;

	json_array_foreach(values, i, x)
		v[i] = json_number_value(x);
	summarize(v, n, &s);
	r = s.median;
	free(v);
	return r;
}

/* the run's per-metric tests: a measurement each, no verdict of its own */
static void add_metric_tests(struct kcidb *k, json_t *metrics, const char *run_id,
			     const char *build_id, const char *path, const char *started)
{
	const char *name;
	json_t *e;

	json_object_foreach(metrics, name, e) {
		json_t *values = json_object_get(e, "values");
		const char *unit = json_string_value(json_object_get(e, "unit"));
		char *id = xasprintf("kpair:%s:%s", run_id, name), *seg = kc_path_seg(name);
		char *tpath = xasprintf("%s.%s", path, seg);
		json_t *t;

		t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:f}, s:{s:s, s:s, s:b, s:O}}",
			      "id", id, "origin", ORIGIN, "build_id", build_id, "path", tpath,
			      "status", "DONE", "number", "value", run_value(values),
			      "misc", "metric", name, "unit", unit,
			      "per_op", json_array_size(values) > 1, "values", values);
		if (*unit)
			json_object_set_new(json_object_get(t, "number"), "unit", json_string(unit));
		if (started)
			json_object_set_new(t, "start_time", json_string(started));
		kc_add(k, k->tests, t);
		free(tpath);
		free(seg);
		free(id);
	}
}

/* "2026-12-02T14:39:10Z", as utc_stamp() writes it (KCIDB wants RFC 3339) */
static int utc_time_ok(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	size_t i;

	for (i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return 0;
	return !s[i];
}

/* what a run test says about the guest's machine: QEMU, target, accelerator, host */
static json_t *run_environment(struct jfile *f)
{
	const char *qemu = jstr(f, "qemu.version", 0);
	const char *machine = jstr(f, "target.machine", 0);
	const char *accel = jstr(f, "accel", 0);
	const char *hcpu = jstr(f, "host.cpu", 0);
	double cpus = 0, mem = 0;
	struct text c = { 0 };
	json_t *env;

	jnum(f, "job.cpus", 0, &cpus);
	jnum(f, "job.memory", 0, &mem);
	text_add(&c, "QEMU %s %s, %s, %.0f vCPU, %.0f MiB, on %s", qemu ? qemu : "?",
		 machine ? machine : "?", accel ? accel : "?", cpus, mem / 1048576, hcpu ? hcpu : "?");
	env = json_pack("{s:s, s:{s:O*, s:O*, s:O*, s:O*, s:O*, s:O*}}", "comment", c.s, "misc",
			"host", jget(f->root, "host"), "target", jget(f->root, "target"),
			"accel", jget(f->root, "accel"), "accel_reason", jget(f->root, "accel_reason"),
			"qemu_version", jget(f->root, "qemu.version"),
			"backend", jget(f->root, "backend"));
	free(c.s);
	return env;
}

/*
 * One run directory: its kernel's checkout and build, the run test and, for
 * an ok run, a test per metric. *build_id (may be NULL) gets the build's id
 * (caller frees).
 */
int kc_add_run(struct kcidb *k, const char *dir, char **build_id)
{
	struct jfile f = { 0 };
	const char *run_id, *status, *kstatus, *workload, *start, *reason, *jname, *kid, *exc;
	json_t *samples = NULL, *metrics = NULL, *t, *files;
	char *bid = NULL, *id = NULL, *path = NULL, *seg, *comment = NULL;
	double wall = 0, records = 0;
	int ret = -1;

	if (jfile_load(&f, dir, "result.json") < 0)
		goto out;
	run_id = jstr(&f, "run_id", 1);
	status = jstr(&f, "status", 1);
	workload = jstr(&f, "job.workload", 1);
	jname = jstr(&f, "job.name", 1);
	kid = jstr(&f, "kernel.id", 1);
	start = jstr(&f, "started", 0);
	reason = jstr(&f, "reason", 0);
	exc = jstr(&f, "console_excerpt", 0);
	jnum(&f, "records", 1, &records);
	jnum(&f, "times.wall_s", 0, &wall);
	if (start && !utc_time_ok(start))
		jbad(&f, "started", "not a UTC time like 2026-12-02T14:39:10Z");
	if (f.bad)
		goto out;
	kstatus = kc_run_status(status);
	if (!kstatus) {
		error("'%s': status: '%s' is not a kpair run status (kpair help status)", f.path,
		      status);
		goto out;
	}
	if (kc_add_kernel(k, &f, "kernel", &bid) < 0 || !(samples = export_load_samples(dir)))
		goto out;
	if (json_array_size(samples) != (size_t)records) {
		error("'%s/samples.jsonl': %zu sample records, but '%s' records says %.0f", dir,
		      json_array_size(samples), f.path, records);
		goto out;
	}
	if (!(metrics = by_metric(dir, samples)))
		goto out;
	seg = kc_path_seg(workload);
	path = xasprintf("kpair.%s", seg);
	free(seg);
	id = xasprintf("kpair:%s", run_id);
	comment = xasprintf("%s on %s: %s%s%s", jname, kid, status, reason && strcmp(reason, status) ?
			    ": " : "", reason && strcmp(reason, status) ? reason : "");
	files = json_array();
	kc_add_file(files, dir, "result.json");
	kc_add_file(files, dir, "samples.jsonl");
	kc_add_file(files, dir, "console.log");
	kc_add_file(files, dir, "qemu.log");
	kc_add_file(files, dir, "profile.json");
	t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:{s:s, s:O*, s:O*, s:O*, s:O*, "
		      "s:O*, s:O*, s:O*, s:O*, s:O}}",
		      "id", id, "origin", ORIGIN, "build_id", bid, "path", path, "status", kstatus,
		      "comment", comment, "environment", run_environment(&f), "output_files", files,
		      "misc", "kpair_status", status, "reason", jget(f.root, "reason"),
		      "exit_code", jget(f.root, "exit_code"), "job", jget(f.root, "job"),
		      "guest", jget(f.root, "guest"), "times", jget(f.root, "times"),
		      "console", jget(f.root, "console"), "errors", jget(f.root, "errors"),
		      "initramfs", jget(f.root, "initramfs"), "samples", samples);
	if (t && jget(f.root, "counters"))	/* the kernel counters' deltas over the workload */
		json_object_set(json_object_get(t, "misc"), "counters", jget(f.root, "counters"));
	if (t && jget(f.root, "profile"))
		json_object_set(json_object_get(t, "misc"), "profile", jget(f.root, "profile"));
	if (f.bad) {	/* a bad optional field that run_environment read */
		json_decref(t);
		goto out;
	}
	if (start)
		json_object_set_new(t, "start_time", json_string(start));
	if (wall > 0)
		json_object_set_new(t, "duration", json_real(wall));
	if (exc && exc[strspn(exc, " \t\r\n")])
		json_object_set_new(t, "log_excerpt", excerpt(exc));
	kc_add(k, k->tests, t);
	if (!strcmp(status, "ok"))
		add_metric_tests(k, metrics, run_id, bid, path, start);
	if (build_id)
		*build_id = xstrdup(bid);
	ret = 0;
out:
	json_decref(metrics);
	json_decref(samples);
	free(comment);
	free(path);
	free(id);
	free(bid);
	jfile_release(&f);
	return ret;
}

int export_kcidb(const char *dir, const char *out)
{
	struct kcidb k = { json_array(), json_array(), json_array(), json_object() };
	char *abs = realpath(dir, NULL), *cmp = NULL, *res = NULL;
	json_t *root;
	int ret = EXPORT_USAGE;

	if (!abs) {
		error("'%s': %s", dir, strerror(errno));
		goto out;
	}
	cmp = xasprintf("%s/comparison.json", abs);
	res = xasprintf("%s/result.json", abs);
	if (!path_exists(cmp) && !path_exists(res)) {
		error("'%s': no comparison.json and no result.json: not an A/B or a run directory",
		      abs);
		goto out;
	}
	if (path_exists(cmp) ? kc_add_ab(&k, abs) < 0 : kc_add_run(&k, abs, NULL) < 0)
		goto out;
	root = json_pack("{s:{s:i, s:i}, s:O, s:O, s:O}", "version", "major", 5, "minor", 0,
			 "checkouts", k.checkouts, "builds", k.builds, "tests", k.tests);
	ret = write_json_atomic(out, root) < 0 ? EXPORT_SETUP_FAILED : 0;
	json_decref(root);
	if (!ret)
		printf("kcidb v5.0: %zu checkout(s), %zu build(s), %zu test(s) -> %s\n",
		       json_array_size(k.checkouts), json_array_size(k.builds),
		       json_array_size(k.tests), out);
out:
	json_decref(k.checkouts);
	json_decref(k.builds);
	json_decref(k.tests);
	json_decref(k.seen);
	free(res);
	free(cmp);
	free(abs);
	return ret;
}

static int cmd_kcidb(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", lopts, NULL)) != -1) {
		if (c != 'o') {
			error("export kcidb: unknown option");
			return export_usage_exit();
		}
		out = optarg;
	}
	if (optind != argc - 1 || !out) {
		error("export kcidb: expected one result directory and -o FILE");
		return export_usage_exit();
	}
	return export_kcidb(argv[optind], out);
}

const struct exporter exporter_kcidb = {
	.name = "kcidb",
	.usage = "kpair export kcidb RESULT_DIR -o FILE\n"
		 "         KCIDB v5 JSON of a run directory (result.json, samples.jsonl) or an A/B\n"
		 "         directory (comparison.json, runs/*/)\n",
	.cmd = cmd_kcidb,
};
