/* nightly.c - the nightly file and one night: kernels, baselines, an A/B per job x target */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ab.h"
#include "backends/vm.h"
#include "compare.h"
#include "config.h"
#include "history.h"
#include "job.h"
#include "kernels/build.h"
#include "kernels/gitsrc.h"
#include "kernels/kernel.h"
#include "kernels/kneeds.h"
#include "kernels/sides.h"
#include "nightly.h"
#include "series.h"
#include "util.h"

#define NOFF(f) offsetof(struct nightly, f)
#define NIGHTLY_MAX 32		/* jobs, targets */

static const char *const rule_choices[] = { "last-good", "pinned", NULL };
static const char *const bisect_choices[] = { "off", "auto", NULL };

const struct opt nightly_opts[] = {
	{ "nightly", "name", OPT_STR, NOFF(name), "nightly", 0, 0, NULL, "name of this nightly, in summaries" },
	{ "nightly", "results", OPT_STR, NOFF(results), "results/nightly", 0, 0, NULL, "where nights go (relative to the project root)" },
	{ "nightly", "jobs", OPT_STR, NOFF(jobs), NULL, 0, 0, NULL, "job files, space separated, relative to the project root" },
	{ "nightly", "targets", OPT_STR, NOFF(targets), "x86_64", 0, 0, NULL, "targets, space separated (configs/targets/)" },
	{ "nightly", "runs", OPT_COUNT, NOFF(runs), "6", 3, 1000, NULL, "runs a side of each A/B" },
	{ "nightly", "seed", OPT_COUNT, NOFF(seed), "1", 0, 2147483647, NULL, "run order seed" },
	{ "nightly", "retries", OPT_COUNT, NOFF(retries), "1", 0, 10, NULL, "retries of a failed run" },
	{ "nightly", "threshold", OPT_STR, NOFF(threshold), "2%", 0, 0, NULL, "no-change band, percent" },
	{ "nightly", "hosts", OPT_STR, NOFF(hosts), "", 0, 0, NULL, "libvirt URIs the runs fan out over (ab --hosts), space separated; empty: this machine" },
	{ "nightly", "backend", OPT_STR, NOFF(backend), "qemu", 0, 0, NULL, "where the runs boot: qemu, libvirt, or lava (a LAVA lab: kpair nightly --lava-url ...)" },
	{ "nightly", "bisect", OPT_ENUM, NOFF(bisect), "off", 0, 0, bisect_choices, "auto: a regression tonight is bisected to its commit (a git branch) or named by its two package versions" },
	{ "nightly", "set", OPT_STR, NOFF(sets), "", 0, 0, NULL, "job keys for both sides: section.key=value, separated by ' | '" },
	{ "kernel", "package", OPT_STR, NOFF(package), "", 0, 0, NULL, "kernel under test: a Debian package, debian:<abi>-<flavour>, or debian:latest-<flavour> (the newest ABI the registry offers tonight)" },
	{ "kernel", "source", OPT_STR, NOFF(source), "", 0, 0, NULL, "or built from linux-source-6.1 or a tree (relative to the project root)" },
	{ "kernel", "branch", OPT_STR, NOFF(branch), "", 0, 0, NULL, "with a git source: build this branch's (any revision's) current tip; nothing is fetched" },
	{ "kernel", "patches", OPT_STR, NOFF(patches), "", 0, 0, NULL, "patches on the source, in order, space separated" },
	{ "kernel", "series", OPT_STR, NOFF(series), "", 0, 0, NULL, "or a quilt series file of patches on the source" },
	{ "kernel", "config", OPT_STR, NOFF(config), "", 0, 0, NULL, "a whole .config (or debian:<abi>-<flavour>'s) with the target's options forced on top" },
	{ "kernel", "fragment", OPT_STR, NOFF(fragment), "", 0, 0, NULL, "or a config fragment on tinyconfig (default configs/kconfig/<target>.config)" },
	{ "kernel", "set", OPT_STR, NOFF(kernel_sets), "", 0, 0, NULL, "job keys of the tested side only, separated by ' | '" },
	{ "baseline", "rule", OPT_ENUM, NOFF(rule), "last-good", 0, 0, rule_choices, "last-good: the kernel of the last night that passed; pinned: baseline.kernel" },
	{ "baseline", "kernel", OPT_STR, NOFF(base_kernel), "", 0, 0, NULL, "pinned kernel (debian:<abi> or a store id); with last-good, the first night's baseline" },
	{ "baseline", "set", OPT_STR, NOFF(base_sets), "", 0, 0, NULL, "job keys of a pinned baseline, separated by ' | '" },
	{ NULL },
};

void nightly_init(struct nightly *n)
{
	memset(n, 0, sizeof(*n));
}

void nightly_release(struct nightly *n)
{
	const struct opt *o;

	for (o = nightly_opts; o->key; o++)
		if (o->type == OPT_STR || o->type == OPT_ENUM)
			free(*(char **)((char *)n + o->off));
	free(n->file);
	nightly_init(n);
}

/* split @s on @sep, trimming blanks; pieces into @out (owned), at most @max */
int nightly_split(const char *s, const char *sep, char **out, int max)
{
	char *copy = xstrdup(s), *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(copy, sep, &save); tok; tok = strtok_r(NULL, sep, &save)) {
		char *end;

		while (*tok == ' ' || *tok == '\t')
			tok++;
		end = tok + strlen(tok);
		while (end > tok && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (!*tok)
			continue;
		if (n >= max) {
			n = -1;
			break;
		}
		out[n++] = xstrdup(tok);
	}
	free(copy);
	return n;
}

void nightly_free_list(char **v, int n)
{
	while (n-- > 0)
		free(v[n]);
}

/* a path from the nightly file: absolute, or relative to the project root */
char *nightly_path(const char *p)
{
	return p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", kpair_root(), p);
}

int nightly_threshold(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%")) || v <= 0 || v >= 100)
		return -1;
	*out = v / 100;
	return 0;
}

/* what the table cannot say: one kernel kind, sets that parse, jobs and targets that load */
static int nightly_check(const struct nightly *n)
{
	char *v[NIGHTLY_MAX], *sets[AB_MAX_SETS];
	int k, i, errors = 0;
	double th;

	if (!*n->package == !*n->source)
		errors += error("%s: kernel: give one of kernel.package or kernel.source", n->file);
	if (!backend_find(n->backend))
		errors += error("%s: nightly.backend: '%s': %s", n->file, n->backend,
				backend_names_text());
	else if (*n->hosts && backend_find(n->backend) != backend_find(NULL) &&
		 !(backend_find(n->backend)->caps & BACKEND_HOSTS))
		errors += error("%s: nightly.hosts: libvirt hosts, not with nightly.backend=%s", n->file,
				n->backend);
	if (*n->package && !kernel_spec_is_package(n->package))
		errors += error("%s: kernel.package: '%s': expected debian:<abi>-<flavour>", n->file,
				n->package);
	if (*n->branch && !*n->source)
		errors += error("%s: kernel.branch: needs kernel.source, a git tree", n->file);
	if (*n->branch && *n->source) {
		char *src = nightly_path(n->source);

		if (!gitsrc_is_repo(src))
			errors += error("%s: kernel.source: '%s' is not a git tree (kernel.branch "
					"needs one)", n->file, src);
		free(src);
	}
	if (*n->config && *n->fragment)
		errors += error("%s: kernel: give kernel.config or kernel.fragment, not both",
				n->file);
	if ((*n->patches || *n->series) && !*n->source)
		errors += error("%s: kernel: patches and series need kernel.source", n->file);
	if (*n->patches && *n->series)
		errors += error("%s: kernel: give kernel.patches or kernel.series, not both", n->file);
	if (!strcmp(n->rule, "pinned") && !*n->base_kernel)
		errors += error("%s: baseline.kernel: missing (required by rule pinned)", n->file);
	if (nightly_threshold(n->threshold, &th) < 0)
		errors += error("%s: nightly.threshold: '%s': expected a percentage between 0 and 100",
				n->file, n->threshold);
	k = nightly_split(n->targets, " \t", v, NIGHTLY_MAX);
	for (i = 0; i < k; i++) {
		struct target t;

		target_init(&t);
		errors += target_load(&t, v[i]) < 0;
		target_release(&t);
	}
	nightly_free_list(v, k);
	if (k <= 0)
		errors += error("%s: nightly.targets: no target", n->file);
	k = nightly_split(n->sets, "|", sets, AB_MAX_SETS);
	nightly_free_list(sets, k);
	if (k < 0)
		errors += error("%s: nightly.set: more than %d", n->file, AB_MAX_SETS);
	k = nightly_split(n->jobs, " \t", v, NIGHTLY_MAX);
	if (k <= 0)
		errors += error("%s: nightly.jobs: no job", n->file);
	for (i = 0; i < k; i++) {
		char *path = nightly_path(v[i]);
		int ns = nightly_split(n->sets, "|", sets, AB_MAX_SETS);
		struct job job;

		job_init(&job);
		errors += job_open(&job, path, sets, ns > 0 ? ns : 0) < 0;
		job_release(&job);
		nightly_free_list(sets, ns);
		free(path);
	}
	nightly_free_list(v, k);
	return errors ? -1 : 0;
}

int nightly_load(struct nightly *n, const char *path, char *const *sets, int nset)
{
	n->file = xstrdup(path);
	if (opts_load(path, nightly_opts, n, n->seen, sets, nset) < 0)
		return -1;
	return nightly_check(n);
}

/* what the night's jobs need of a kernel kpair builds for them, as fragment lines (caller frees) */
static char *night_needs(const struct nightly *n)
{
	char *v[NIGHTLY_MAX], *sets[AB_MAX_SETS];
	struct text t = { NULL, 0 };
	int k = nightly_split(n->jobs, " \t", v, NIGHTLY_MAX), i;

	text_add(&t, "%s", "");
	for (i = 0; i < k; i++) {
		char *path = nightly_path(v[i]), *f;
		int ns = nightly_split(n->sets, "|", sets, AB_MAX_SETS);
		struct job job;

		job_init(&job);
		if (job_open(&job, path, sets, ns > 0 ? ns : 0) == 0) {
			f = kneeds_fragment(&job);
			text_add(&t, "%s", f);
			free(f);
		}
		job_release(&job);
		nightly_free_list(sets, ns);
		free(path);
	}
	nightly_free_list(v, k);
	return t.s;
}

/* tonight's kernel for @target: fetched, or built from the source and its patches */
static int kernel_under_test(const struct nightly *n, const char *target, char **id)
{
	struct build_spec spec = { .target = target, .jobs = 2 };
	struct series s;
	char *src = NULL, *frag = NULL, *cfg = NULL, *list[BUILD_MAX_PATCHES], *needs = NULL;
	int i, np = 0, ret = -1;

	*id = NULL;
	series_init(&s);
	if (*n->package) {
		struct kernel k;

		kernel_init(&k);
		if (kernel_fetch(n->package, &k) == 0) {
			*id = xstrdup(k.id);
			ret = 0;
		}
		kernel_release(&k);
		return ret;
	}
	src = strchr(n->source, '/') || !strncmp(n->source, ".", 1) ? nightly_path(n->source) :
		xstrdup(n->source);
	spec.source = src;
	spec.needs = needs = night_needs(n);
	if (*n->fragment)
		spec.fragment = frag = nightly_path(n->fragment);
	if (*n->config) {
		char *c = !kernel_spec_is_package(n->config) ? nightly_path(n->config) :
			xstrdup(n->config);

		i = config_resolve(c, &cfg);
		free(c);
		if (i < 0)
			goto out;
	}
	if (*n->branch) {
		const char *rev = n->branch;

		/* the branch's tip tonight: resolved now, built like any revision */
		ret = git_build_revs(src, &rev, 1, cfg, target, spec.needs, id) == 0 ? 0 : -1;
		goto out;
	}
	spec.config = cfg;
	if (*n->series) {
		char *sp = nightly_path(n->series);

		i = series_load(&s, sp);
		free(sp);
		if (i < 0)
			goto out;
		for (i = 0; i < s.n; i++)
			spec.patches[spec.npatches++] = s.patches[i];
	} else if (*n->patches) {
		np = nightly_split(n->patches, " \t", list, BUILD_MAX_PATCHES);
		if (np < 0) {
			error("%s: kernel.patches: more than %d", n->file, BUILD_MAX_PATCHES);
			goto out;
		}
		for (i = 0; i < np; i++) {
			char *p = nightly_path(list[i]);

			free(list[i]);
			list[i] = p;
			spec.patches[spec.npatches++] = p;
		}
	}
	ret = kernel_build(&spec, id);
out:
	nightly_free_list(list, np > 0 ? np : 0);
	series_release(&s);
	free(src);
	free(needs);
	free(frag);
	free(cfg);
	return ret;
}

/* a baseline spec: debian:<abi> is fetched, anything else must be in the store */
static int baseline_resolve(const char *spec, char **id)
{
	struct kernel k;
	int ret;

	kernel_init(&k);
	ret = kernel_resolve(spec, &k);
	if (ret < 0)
		error("baseline kernel '%s' is not in the store (kpair kernel list)", spec);
	else
		*id = xstrdup(k.id);
	kernel_release(&k);
	return ret;
}

static int kernel_fits(const char *id, const char *target, char *why, size_t len)
{
	struct kernel k;
	struct target t;
	int ret = -1;

	kernel_init(&k);
	target_init(&t);
	if (kernel_load(id, &k) < 0 || target_load(&t, target) < 0)
		snprintf(why, len, "kernel '%s' or target '%s' cannot be loaded", id, target);
	else if (strcmp(k.arch, t.arch))
		snprintf(why, len, "kernel '%s' is %s, target '%s' wants %s", id, k.arch, target,
			 t.arch);
	else
		ret = 0;
	kernel_release(&k);
	target_release(&t);
	return ret;
}

static json_t *list_json(char *const *v, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* the metrics of a comparison.json that are performance metrics (new reference) */
static json_t *entry_metrics(json_t *cmp)
{
	static const char *const keep[] = { "unit", "better", "n_a", "n_b", "median_a", "median_b",
					    "ratio", "ratio_ci_low", "ratio_ci_high",
					    "p_adjusted", "verdict", "why", NULL };
	json_t *out = json_object(), *m;
	const char *name;
	int i;

	json_object_foreach(json_object_get(cmp, "metrics"), name, m) {
		json_t *e;

		if (!strcmp(json_string_value(json_object_get(m, "better")), "none"))
			continue;
		e = json_object();
		for (i = 0; keep[i]; i++)
			json_object_set(e, keep[i], json_object_get(m, keep[i]) ?
				       json_object_get(m, keep[i]) : json_null());
		json_object_set_new(out, name, e);
	}
	return out;
}

/* the baseline of @key tonight: sets its kernel id and sets into @o and a note into @e */
static int baseline_for(const struct nightly *n, json_t *index, const char *date,
			const char *key, const char *tonight, struct ab_opts *o, json_t *e)
{
	const char *night = NULL;
	json_t *good = NULL, *v;
	char *sets[AB_MAX_SETS];
	size_t i;
	int k;

	if (!strcmp(n->rule, "last-good"))
		good = history_last_good(index, date, key, &night);
	if (good) {
		o->side[0].kernel = xstrdup(json_string_value(json_object_get(good, "kernel")));
		json_array_foreach(json_object_get(good, "sets"), i, v)
			if (o->side[0].nset < AB_MAX_SETS)
				o->side[0].sets[o->side[0].nset++] = xstrdup(json_string_value(v));
		json_object_set_new(e, "baseline", json_pack("{s:s, s:s, s:O}", "rule", n->rule,
				    "night", night, "kernel", json_object_get(good, "kernel")));
		if (*n->base_kernel)	/* the pinned reference, kept beside the moving baseline */
			json_object_set_new(json_object_get(e, "baseline"), "reference",
					    json_string(n->base_kernel));
		return 0;
	}
	if (*n->base_kernel) {
		if (baseline_resolve(n->base_kernel, &o->side[0].kernel) < 0)
			return -1;
		k = nightly_split(n->base_sets, "|", sets, AB_MAX_SETS);
		for (i = 0; k > 0 && i < (size_t)k; i++)
			o->side[0].sets[o->side[0].nset++] = sets[i];
		json_object_set_new(e, "baseline", json_pack("{s:s, s:s, s:s}", "rule", n->rule,
				    "night", strcmp(n->rule, "pinned") ? "none: baseline.kernel" :
				    "pinned", "kernel", o->side[0].kernel));
		return 0;
	}
	/* the first night with no pinned kernel: an A/A of tonight's kernel sets the mark */
	o->side[0].kernel = xstrdup(tonight);
	json_object_set_new(e, "baseline", json_pack("{s:s, s:s, s:s}", "rule", n->rule, "night",
			    "none: tonight's kernel (A/A)", "kernel", tonight));
	return 0;
}

/* one job x target: the A/B into @dir; the entry's status and metrics into @e */
static void night_entry(const struct nightly *n, json_t *index, const char *date,
			const char *job_path, const char *target, const char *tonight,
			const char *dir, json_t *e)
{
	const char *key = json_string_value(json_object_get(e, "key"));
	char *plan = xasprintf("%s/ab.json", dir), *cpath = xasprintf("%s/comparison.json", dir);
	char *tset = xasprintf("job.target=%s", target), *ks[AB_MAX_SETS];
	struct ab_opts o;
	double t0 = mono_now();
	json_t *cmp;
	int rc, nk, i;

	ab_opts_init(&o);
	o.job_path = xstrdup(job_path);
	o.runs = (int)n->runs;
	o.runs_given = 1;	/* the nightly file's runs stand, as -n does */
	o.seed = n->seed;
	o.retries = (int)n->retries;
	nightly_threshold(n->threshold, &o.threshold);
	o.out_dir = xstrdup(dir);
	o.nset = nightly_split(n->sets, "|", o.sets, AB_MAX_SETS - 1);
	o.sets[o.nset++] = xstrdup(tset);
	nk = nightly_split(n->kernel_sets, "|", ks, AB_MAX_SETS);
	for (i = 0; i < nk; i++)
		o.side[1].sets[o.side[1].nset++] = ks[i];
	o.side[1].kernel = xstrdup(tonight);
	if (backend_find(n->backend) != backend_find(NULL))
		o.backend = xstrdup(n->backend);
	if (*n->hosts) {
		char *list = xstrdup(n->hosts), *p;

		for (p = list; *p; p++)	/* ab's form: comma separated */
			if (*p == ' ' || *p == '\t')
				*p = ',';
		while ((p = strstr(list, ",,")))
			memmove(p, p + 1, strlen(p));
		rc = ab_set_hosts(&o, list[0] == ',' ? list + 1 : list);
		free(list);
		if (rc < 0) {
			json_object_set_new(e, "status", json_string("infra-failed"));
			json_object_set_new(e, "reason", json_string(error_last()));
			goto out;
		}
	}
	json_object_set_new(e, "sets", list_json(o.side[1].sets, o.side[1].nset));
	if (baseline_for(n, index, date, key, tonight, &o, e) < 0) {
		json_object_set_new(e, "status", json_string("infra-failed"));
		json_object_set_new(e, "reason", json_string("the baseline kernel cannot be had"));
		goto out;
	}
	json_object_set_new(e, "baseline_sets", list_json(o.side[0].sets, o.side[0].nset));
	info("nightly %s: %s: baseline %s vs tonight %s", date, key, o.side[0].kernel, tonight);
	rc = path_exists(plan) ? ab_resume(dir) : ab_run(&o);
	cmp = json_load_file(cpath, 0, NULL);
	json_object_set_new(e, "ab_exit", json_integer(rc));
	json_object_set_new(e, "wall_s", json_real(mono_now() - t0));
	if (!cmp) {
		json_object_set_new(e, "status", json_string("infra-failed"));
		json_object_set_new(e, "reason", json_string("the A/B wrote no comparison.json"));
		goto out;
	}
	json_object_set_new(e, "failed_runs", json_incref(json_object_get(cmp, "failed_runs")));
	json_object_set_new(e, "metrics", entry_metrics(cmp));
	if (rc > 1 || json_integer_value(json_object_get(cmp, "failed_runs")) > 0) {
		json_object_set_new(e, "status", json_string(rc == 1 ? "regressed" : "infra-failed"));
		json_object_set_new(e, "reason", outcome_of_json(cmp) != OUTCOME_PASS ?
				    json_incref(json_object_get(json_object_get(cmp, "failures"), "why")) :
				    json_string(rc > 1 ? "runs failed beyond the retries" :
				    "runs failed (retried; see comparison.json order)"));
	} else {
		json_object_set_new(e, "status", json_string(rc ? "regressed" : "passed"));
		json_object_set_new(e, "reason", json_string(rc ? "at least one metric regressed" :
				    "no metric regressed"));
	}
	json_decref(cmp);
out:
	ab_opts_release(&o);
	free(tset);
	free(plan);
	free(cpath);
}

int nightly_run(const struct nightly *n, const char *date)
{
	char *targets[NIGHTLY_MAX], *jobs[NIGHTLY_MAX], *root, *ndir, *d, *started = utc_stamp(), *cpl, *bl;
	json_t *index, *entries = json_array(), *night, *kernels = json_object(), *e;
	int nt, nj, t, j, infra = 0, regressed = 0, ret = 2;
	double t0 = mono_now();
	size_t i;

	d = date ? xstrdup(date) : history_today();
	if (!history_date_ok(d)) {
		error("--date '%s': expected YYYY-MM-DD", d);
		free(d);
		free(started);
		json_decref(entries);
		json_decref(kernels);
		return 2;
	}
	root = nightly_path(n->results);
	ndir = xasprintf("%s/%s", root, d);
	nt = nightly_split(n->targets, " \t", targets, NIGHTLY_MAX);
	nj = nightly_split(n->jobs, " \t", jobs, NIGHTLY_MAX);
	index = history_load(root);
	if (!index || mkdir_p(ndir, 0755) < 0)
		goto out;
	for (t = 0; t < nt; t++) {
		char *tonight = NULL, why[512] = "";

		if (kernel_under_test(n, targets[t], &tonight) < 0)
			snprintf(why, sizeof(why), "the kernel under test cannot be had for %s",
				 targets[t]);
		else if (kernel_fits(tonight, targets[t], why, sizeof(why)) < 0)
			error("%s", why);
		json_object_set_new(kernels, targets[t], tonight ? json_string(tonight) : json_null());
		for (j = 0; j < nj; j++) {
			char *jp = nightly_path(jobs[j]), *name = NULL, *key, *dir;
			struct job job;

			job_init(&job);
			if (job_open(&job, jp, NULL, 0) == 0)
				name = xstrdup(job.name);
			job_release(&job);
			key = xasprintf("%s-%s", name ? name : "?", targets[t]);
			dir = xasprintf("%s/%s", ndir, key);
			e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "key", key, "job", name ? name : "?",
				      "job_file", jobs[j], "target", targets[t], "dir", key,
				      "kernel", tonight ? json_string(tonight) : json_null());
			if (why[0]) {
				json_object_set_new(e, "status", json_string("infra-failed"));
				json_object_set_new(e, "reason", json_string(why));
			} else {
				night_entry(n, index, d, jp, targets[t], tonight, dir, e);
			}
			json_array_append_new(entries, e);
			free(dir);
			free(key);
			free(name);
			free(jp);
		}
		free(tonight);
	}
	nightly_changepoints(index, root, d, entries);
	if (!strcmp(n->bisect, "auto"))
		nightly_bisect(n, ndir, entries);
	json_array_foreach(entries, i, e) {
		const char *st = json_string_value(json_object_get(e, "status"));

		infra |= !strcmp(st, "infra-failed");
		regressed |= !strcmp(st, "regressed");
	}
	ret = infra ? 2 : regressed ? 1 : 0;
	night = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:s, s:i, s:O, s:O}", "format", NIGHT_FORMAT,
			  "name", n->name, "file", n->file, "date", d, "started", started,
			  "wall_s", mono_now() - t0, "status",
			  infra ? "infra-failed" : regressed ? "regressed" : "passed", "exit", ret,
			  "kernels", kernels, "entries", entries);
	if (history_write_night(ndir, night) < 0 || history_update(root, index, night) < 0)
		ret = 2;
	cpl = nightly_cp_line(entries);
	bl = nightly_bisect_line(entries);
	printf("nightly %s: %s (exit %d)%s%s in %.0f s -> %s/summary.json, %s/junit.xml, "
	       "%s/index.html\n", d, json_string_value(json_object_get(night, "status")), ret, cpl,
	       bl, mono_now() - t0, ndir, ndir, root);
	free(cpl);
	free(bl);
	json_decref(night);
out:
	json_decref(index);
	json_decref(entries);
	json_decref(kernels);
	nightly_free_list(targets, nt > 0 ? nt : 0);
	nightly_free_list(jobs, nj > 0 ? nj : 0);
	free(ndir);
	free(root);
	free(started);
	free(d);
	return ret;
}
