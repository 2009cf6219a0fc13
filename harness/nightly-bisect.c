/*
 * nightly-bisect.c - nightly.bisect = auto: from an alarm to a commit, unattended. Each
 * entry that regressed tonight is bisected between the kernel before its change and the one
 * after: the nights on either side of a newly confirmed change point for the worse (the last
 * night at the old level, the first at the new), or, while the night's own A/B decides
 * (fewer than 3 nights), the A/B's baseline and tonight's kernel. A nightly that follows a git
 * branch bisects the commits between them (bisect.h, with its step sizing) into
 * <entry>/bisect/; a package nightly names the two package versions; anything else says why
 * it cannot. The outcome is the entry's "bisect", in summary.json and the index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "kernels/kernel.h"
#include "kernels/sides.h"
#include "nightly.h"
#include "summary.h"
#include "util.h"

/* {night, kernel, words, commit or package version} of one side of the change */
static json_t *side_json(const char *night, const char *kernel)
{
	char *p = xasprintf("%s/images/kernels/%s/kernel.json", kpair_root(), kernel);
	char *words = summary_kernel_id_words(kernel);
	json_t *kj = *kernel && path_exists(p) ? json_load_file(p, 0, NULL) : NULL;
	json_t *src = json_object_get(kj, "source"), *git = json_object_get(src, "git"), *out;

	out = json_pack("{s:s, s:s, s:s}", "night", night, "kernel", kernel, "words", words);
	if (git)
		json_object_set_new(out, "commit", json_incref(json_object_get(git, "commit")));
	if (!strcmp(jget_str(src, "type"), "debian-package"))
		json_object_set_new(out, "package", json_sprintf("%s %s", jget_str(src, "package"),
								 jget_str(src, "version")));
	json_decref(kj);
	free(words);
	free(p);
	return out;
}

/*
 * What to bisect in @e: the metric and the two sides. A newly confirmed step for the worse
 * first (a drift has no one commit: NULL, with @why); else the metric the A/B called
 * regressed, between its baseline and tonight's kernel.
 */
static const char *pick(json_t *e, const char *date, json_t **good, json_t **bad, char *why,
			size_t len)
{
	json_t *cp = json_object_get(e, "changepoints"), *c, *m;
	const char *name, *drift = NULL;
	size_t i;

	json_array_foreach(json_object_get(cp, "new"), i, c) {
		if (!json_is_true(json_object_get(c, "worse")))
			continue;
		if (strcmp(jget_str(c, "kind"), "step")) {
			drift = jget_str(c, "metric");
			continue;
		}
		*good = side_json(jget_str(json_object_get(c, "before"), "night"),
				  jget_str(json_object_get(c, "before"), "kernel"));
		*bad = side_json(jget_str(json_object_get(c, "after"), "night"),
				 jget_str(json_object_get(c, "after"), "kernel"));
		return jget_str(c, "metric");
	}
	if (drift) {
		snprintf(why, len, "%s drifted over several nights: no one commit to bisect", drift);
		return NULL;
	}
	if (cp && !json_object_get(cp, "note")) {
		snprintf(why, len, "no new change point for the worse tonight");
		return NULL;
	}
	json_object_foreach(json_object_get(e, "metrics"), name, m)
		if (!strncmp(jget_str(m, "verdict"), "regressed", 9)) {
			json_t *b = json_object_get(e, "baseline");

			*good = side_json(jget_str(b, "night"), jget_str(b, "kernel"));
			*bad = side_json(date, jget_str(e, "kernel"));
			return name;
		}
	snprintf(why, len, "no metric regressed in the night's A/B");
	return NULL;
}

/* the bisect's result, from its bisect.json, onto @r */
static void result(json_t *r, const char *dir, int rc)
{
	char *p = xasprintf("%s/bisect.json", dir);
	json_t *b = path_exists(p) ? json_load_file(p, 0, NULL) : NULL;
	json_t *s = json_object_get(b, "search");

	json_object_set_new(r, "exit", json_integer(rc));
	json_object_set_new(r, "first_bad", b ? json_incref(json_object_get(b, "first_bad")) :
			    json_null());
	if (b) {
		json_object_set_new(r, "commits", json_incref(json_object_get(json_object_get(b,
				    "git"), "commits")));
		json_object_set_new(r, "ab_steps", json_incref(json_object_get(b, "ab_steps")));
		json_object_set_new(r, "wall_s", json_incref(json_object_get(b, "wall_s")));
	}
	json_object_set_new(r, "why", json_string(rc == 0 ? "found the first bad commit" :
		rc == 1 ? "the range does not regress the metric" :
		rc == 3 ? "a build or the runs failed (bisect.json, the step's errors)" :
		*jget_str(s, "why") ? jget_str(s, "why") : "bad input (the night's log)"));
	json_decref(b);
	free(p);
}

static void bisect_git(const struct nightly *n, const char *ndir, json_t *e, const char *metric,
		       json_t *r)
{
	struct bisect_opts o = { .seed = n->seed };
	char *src = nightly_path(n->source), *cfg = NULL, *job = nightly_path(jget_str(e, "job_file"));
	char *dir = xasprintf("%s/%s/bisect", ndir, jget_str(e, "key"));
	const char *good = jget_str(json_object_get(r, "good"), "commit");
	const char *bad = jget_str(json_object_get(r, "bad"), "commit");
	int rc, nsets;

	if (*n->config) {
		char *c = !kernel_spec_is_package(n->config) ? nightly_path(n->config) :
			  xstrdup(n->config);

		rc = config_resolve(c, &cfg);
		free(c);
		if (rc < 0) {
			json_object_set_new(r, "why", json_string(error_last()));
			goto out;
		}
	}
	o.job_path = job;
	o.source = src;
	o.good = good;
	o.bad = bad;
	o.config = cfg;
	o.metric = metric;
	o.target = jget_str(e, "target");
	o.runs = (int)n->runs;
	o.max_runs = BISECT_DEFAULT_MAX_RUNS > o.runs ? BISECT_DEFAULT_MAX_RUNS : o.runs;
	nightly_threshold(n->threshold, &o.threshold);
	o.out_dir = dir;
	nsets = nightly_split(n->sets, "|", o.sets, AB_MAX_SETS / 2);
	o.nset = nsets > 0 ? nsets : 0;
	nsets = nightly_split(n->kernel_sets, "|", o.sets + o.nset, AB_MAX_SETS / 2);
	o.nset += nsets > 0 ? nsets : 0;
	json_object_set_new(r, "dir", json_sprintf("%s/bisect", jget_str(e, "key")));
	info("nightly: %s: %s regressed: bisecting %.12s..%.12s", jget_str(e, "key"), metric, good,
	     bad);
	rc = bisect_run(&o);
	result(r, dir, rc);
	nightly_free_list(o.sets, o.nset);
out:
	free(src);
	free(cfg);
	free(job);
	free(dir);
}

void nightly_bisect(const struct nightly *n, const char *ndir, json_t *entries)
{
	json_t *e;
	size_t i;

	json_array_foreach(entries, i, e) {
		json_t *good = NULL, *bad = NULL, *r;
		const char *metric, *date = strrchr(ndir, '/') + 1;
		char why[256] = "";

		if (strcmp(jget_str(e, "status"), "regressed"))
			continue;
		metric = pick(e, date, &good, &bad, why, sizeof(why));
		r = json_pack("{s:s?}", "metric", metric);
		if (good) {
			json_object_set_new(r, "good", good);
			json_object_set_new(r, "bad", bad);
		}
		if (!metric) {
			json_object_set_new(r, "why", json_string(why));
		} else if (*n->package) {
			json_object_set_new(r, "kind", json_string("packages"));
			json_object_set_new(r, "why", json_sprintf("a package nightly: %s came between "
				"%s (%s) and %s (%s)", metric, jget_str(good, "package"),
				jget_str(good, "night"), jget_str(bad, "package"), jget_str(bad, "night")));
		} else if (!*n->branch || *n->patches || *n->series) {
			json_object_set_new(r, "why", json_string("the kernel under test is not a git "
				"branch's tip: no range of commits to bisect"));
		} else if (!*jget_str(good, "commit") || !*jget_str(bad, "commit")) {
			json_object_set_new(r, "why", json_string("a side of the change was not built "
				"from the branch (a pinned baseline): no range of commits"));
		} else if (!strcmp(jget_str(good, "commit"), jget_str(bad, "commit"))) {
			json_object_set_new(r, "why", json_string("the same commit on both sides: the "
				"change is not in the kernel (the host, the setup)"));
		} else {
			json_object_set_new(r, "kind", json_string("git"));
			bisect_git(n, ndir, e, metric, r);
		}
		json_object_set_new(e, "bisect", r);
	}
}

char *nightly_bisect_line(json_t *entries)
{
	struct text t = { 0 };
	json_t *e, *b, *fb;
	size_t i;
	char *s;

	json_array_foreach(entries, i, e) {
		if (!(b = json_object_get(e, "bisect")))
			continue;
		fb = json_object_get(b, "first_bad");
		if (json_is_object(fb))
			text_add(&t, "; %s %s bisected to %.12s (\"%s\", %s)", jget_str(e, "key"),
				 jget_str(b, "metric"), jget_str(fb, "commit"), jget_str(fb, "subject"),
				 jget_str(fb, "author"));
		else
			text_add(&t, "; %s: no bisect result (%s)", jget_str(e, "key"),
				 jget_str(b, "why"));
	}
	s = xstrdup(t.s ? t.s : "");
	free(t.s);
	return s;
}
