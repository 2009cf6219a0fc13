/*
 * export-kcidb-ab.c - kpair export kcidb of an A/B directory: every run as
 * export-kcidb.c exports it, then one test per metric
 * `kpair.<workload>.ab.<metric>` (status from the verdict, number the ratio
 * patched/stock, misc the whole comparison.json entry) and one for the A/B.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "export-kcidb.h"
#include "util.h"

/* KCIDB status of one metric's A/B verdict; NULL: not a kpair verdict */
static const char *verdict_status(const char *verdict, const char *better)
{
	int v = verdict_find(verdict);

	if (v < 0)
		return NULL;
	if (v == V_INCONCLUSIVE || (better && !strcmp(better, "none")))
		return "DONE";
	/* a change inside the threshold passes, as it does kpair's exit status */
	return v == V_REGRESSED ? "FAIL" : "PASS";
}

/* " 0.603 -> 0.612 s, ratio 1.016 (95% CI 0.753-1.704), p_adjusted 0.589" as far as known */
static void verdict_numbers(struct text *c, json_t *m)
{
	json_t *a = json_object_get(m, "median_a"), *b = json_object_get(m, "median_b");
	json_t *r = json_object_get(m, "ratio"), *lo = json_object_get(m, "ratio_ci_low");
	json_t *hi = json_object_get(m, "ratio_ci_high"), *p = json_object_get(m, "p_adjusted");

	if (json_is_number(a) && json_is_number(b))
		text_add(c, " %.6g -> %.6g %s,", json_number_value(a), json_number_value(b),
			 json_string_value(json_object_get(m, "unit")) ?: "");
	if (json_is_number(r))
		text_add(c, " ratio %.4g", json_number_value(r));
	if (json_is_number(lo) && json_is_number(hi))
		text_add(c, " (95%% CI %.4g-%.4g)", json_number_value(lo), json_number_value(hi));
	if (json_is_number(p))
		text_add(c, ", p_adjusted %.3g", json_number_value(p));
}

/* the comparison tests: one per metric and one for the whole A/B; 0, or -1 with an error */
static int add_verdicts(struct kcidb *k, struct jfile *f, const char *ab_id, const char *path,
			const char *build_id, const char *dir)
{
	json_t *metrics = jobj(f, "metrics", 1), *m, *t, *files;
	const char *name, *overall = "PASS";
	int nreg = 0, nperf = 0;
	struct text sum = { 0 };
	char field[200];

	if (!metrics)
		return -1;
	json_object_foreach(metrics, name, m) {
		const char *verdict, *better, *unit, *st;
		char *id = xasprintf("%s:%s", ab_id, name), *seg = kc_path_seg(name);
		char *tpath = xasprintf("%s.%s", path, seg);
		struct text c = { 0 };

		/* a metric name may hold dots (fio's, stress-ng's): no dotted path through it */
		snprintf(field, sizeof(field), "metrics[\"%s\"]", name);
		verdict = ostr(f, m, field, "verdict", 1);
		better = ostr(f, m, field, "better", 1);
		unit = ostr(f, m, field, "unit", 1);
		st = verdict ? verdict_status(verdict, better) : NULL;
		if (verdict && !st)
			error("'%s': %s.verdict: '%s' is not a kpair verdict", f->path, field,
			      verdict);
		if (f->bad || !st) {
			free(tpath);
			free(seg);
			free(id);
			return -1;
		}
		nperf += strcmp(better, "none") != 0;
		nreg += !strcmp(st, "FAIL");
		if (!strcmp(st, "FAIL"))
			overall = "FAIL";
		else if (!strcmp(st, "DONE") && strcmp(better, "none") && strcmp(overall, "FAIL"))
			overall = "DONE";
		if (strcmp(better, "none"))
			text_add(&c, "%s (%s, %s is better):", name, unit, better);
		else
			text_add(&c, "%s (%s, not a performance metric):", name, unit);
		verdict_numbers(&c, m);
		text_add(&c, ": %s", verdict);
		t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:O}}", "id", id, "origin", ORIGIN,
			      "build_id", build_id, "path", tpath, "status", st, "comment", c.s,
			      "misc", "metric", name, "comparison", m);
		if (json_is_number(json_object_get(m, "ratio")))
			json_object_set_new(t, "number", json_pack("{s:O}", "value",
								   json_object_get(m, "ratio")));
		kc_add(k, k->tests, t);
		free(c.s);
		free(tpath);
		free(seg);
		free(id);
	}
	files = json_array();
	kc_add_file(files, dir, "comparison.json");
	kc_add_file(files, dir, "ab.json");
	kc_add_file(files, dir, "report.html");
	text_add(&sum, "%s of %s vs %s: %d of %d performance metrics regressed",
		 jstr(f, "kind", 0) ?: "ab", jstr(f, "sides.stock.kernel_id", 0) ?: "?",
		 jstr(f, "sides.patched.kernel_id", 0) ?: "?", nreg, nperf);
	t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:{s:O*, s:O*, s:O*, s:O*, s:O*, s:O*, "
		      "s:O*, s:O*, s:O*, s:O*}}", "id", ab_id, "origin", ORIGIN, "build_id", build_id,
		      "path", path, "status", overall, "comment", sum.s, "output_files", files,
		      "misc", "kind", jget(f->root, "kind"), "sides", jget(f->root, "sides"),
		      "sets", jget(f->root, "sets"), "order", jget(f->root, "order"),
		      "order_seed", jget(f->root, "order_seed"),
		      "threshold", jget(f->root, "threshold"), "alpha", jget(f->root, "alpha"),
		      "failed_a", jget(f->root, "failed_a"), "failed_b", jget(f->root, "failed_b"),
		      "claim", jget(f->root, "claim"));
	if (t) {	/* why it changed, and what else did: as comparison.json has them */
		json_t *misc = json_object_get(t, "misc");

		if (jget(f->root, "profile"))
			json_object_set(misc, "profile", jget(f->root, "profile"));
		if (jget(f->root, "counters"))
			json_object_set(misc, "counters", jget(f->root, "counters"));
	}
	kc_add(k, k->tests, t);
	free(sum.s);
	return f->bad ? -1 : 0;
}

/* a run of the A/B order that left no result.json: a test from its order entry alone */
static int add_missing_run(struct kcidb *k, struct jfile *f, const char *field, const char *ab_id,
			   const char *build_id, const char *workload_path)
{
	const char *status = kstr(f, field, "status", 1), *reason = kstr(f, field, "reason", 0);
	const char *run_id = kstr(f, field, "run_id", 0), *st;
	double index = 0;
	char *id;
	json_t *t;

	knum(f, field, "index", 1, &index);
	if (f->bad)
		return -1;
	st = kc_run_status(status);
	if (!st)
		return error("'%s': %s.status: '%s' is not a kpair run status", f->path, field, status);
	if (!strcmp(status, "ok"))
		return error("'%s': %s.status: ok, but run %.0f has no result.json", f->path, field,
			     index);
	id = run_id && *run_id ? xasprintf("kpair:%s", run_id) :
				 xasprintf("%s:run-%.0f", ab_id, index);
	t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:O*}}", "id", id, "origin", ORIGIN,
		      "build_id", build_id, "path", workload_path, "status", st,
		      "comment", reason ? reason : status, "misc", "kpair_status", status,
		      "order", jget(f->root, field));
	kc_add(k, k->tests, t);
	free(id);
	return 0;
}

/* an A/B directory: comparison.json, its runs in runs/NNN-<side>/, the verdicts */
int kc_add_ab(struct kcidb *k, const char *dir)
{
	static const char *const sides[2] = { "stock", "patched" };
	struct jfile f = { 0 };
	const char *format, *kind, *workload, *first = NULL;
	char *bid[2] = { NULL, NULL }, *ab_id = NULL, *path = NULL, *wpath = NULL, *seg, field[64];
	json_t *order, *e;
	size_t i;
	int s, ret = -1, *missing = NULL;

	if (jfile_load(&f, dir, "comparison.json") < 0)
		goto out;
	format = jstr(&f, "format", 1);
	kind = jstr(&f, "kind", 1);
	workload = jstr(&f, "job.workload", 1);
	order = jget(f.root, "order");
	if (!json_is_array(order))
		jbad(&f, "order", order ? "not an array" : "missing");
	if (f.bad)
		goto out;
	if (strcmp(format, COMPARE_FORMAT)) {
		error("'%s': format: '%s', not %s", f.path, format, COMPARE_FORMAT);
		goto out;
	}
	for (s = 0; s < 2; s++) {
		snprintf(field, sizeof(field), "sides.%s.kernel", sides[s]);
		if (json_is_object(jget(f.root, field)) && kc_add_kernel(k, &f, field, &bid[s]) < 0)
			goto out;
	}
	missing = xcalloc(json_array_size(order) + 1, sizeof(int));
	json_array_foreach(order, i, e) {
		const char *side, *run_id;
		char *rdir, *res, *rb = NULL;
		double index = -1;

		snprintf(field, sizeof(field), "order.%zu", i);
		side = kstr(&f, field, "side", 1);
		run_id = kstr(&f, field, "run_id", 0);
		kstr(&f, field, "status", 1);
		knum(&f, field, "index", 1, &index);
		if (f.bad)
			goto out;
		s = !strcmp(side, "patched");
		if (!s && strcmp(side, "stock")) {
			error("'%s': %s.side: '%s', not stock or patched", f.path, field, side);
			goto out;
		}
		if (!first && run_id && *run_id)
			first = run_id;
		rdir = xasprintf("%s/runs/%03d-%s", dir, (int)index, side);
		res = xasprintf("%s/result.json", rdir);
		missing[i] = !path_exists(res);
		if (!missing[i] && kc_add_run(k, rdir, &rb) < 0) {
			free(res);
			free(rdir);
			goto out;
		}
		if (rb && !bid[s])
			bid[s] = rb;
		else
			free(rb);
		free(res);
		free(rdir);
	}
	if (!bid[1] && !bid[0]) {
		error("'%s': no kernel in sides and no run with a result.json", f.path);
		goto out;
	}
	ab_id = first ? xasprintf("kpair:ab-%s", first) : xasprintf("kpair:ab-%s", strrchr(dir, '/') + 1);
	seg = kc_path_seg(workload);
	wpath = xasprintf("kpair.%s", seg);
	free(seg);
	seg = kc_path_seg(kind);
	path = xasprintf("%s.%s", wpath, seg);
	free(seg);
	json_array_foreach(order, i, e) {
		const char *side = json_string_value(json_object_get(e, "side"));

		s = !strcmp(side, "patched");
		snprintf(field, sizeof(field), "order.%zu", i);
		if (missing[i] && add_missing_run(k, &f, field, ab_id, bid[s] ? bid[s] : bid[!s],
						  wpath) < 0)
			goto out;
	}
	ret = add_verdicts(k, &f, ab_id, path, bid[1] ? bid[1] : bid[0], dir);
out:
	free(missing);
	free(path);
	free(wpath);
	free(ab_id);
	free(bid[0]);
	free(bid[1]);
	jfile_release(&f);
	return ret;
}

