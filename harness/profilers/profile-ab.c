/*
 * profile-ab.c - kpair ab --profile: after the measured runs, one profiled run a side
 * (DIR/profile/stock, DIR/profile/patched; never in the statistics), and their diff in
 * DIR/profile/diff.json, which comparison.json, the summary and report.html carry, and their
 * differential flame graph in DIR/profile/flame.svg. A side
 * whose profiled run fails leaves {"absent": why} instead: the A/B's verdicts stand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab-opts.h"
#include "ab-plan.h"
#include "profilers/profiler.h"
#include "profilers/stacks.h"
#include "run.h"
#include "util.h"

static const char *const sides[] = { "stock", "patched" };

/* the profiled run of @side in @dir, unless an earlier kpair left it whole; why not, or NULL */
static char *profiled_run(const struct ab_opts *o, int side, const char *dir)
{
	char *res = xasprintf("%s/result.json", dir), *why = NULL;
	char *sets[2 * AB_MAX_SETS];
	struct run_opts ro = { 0 };
	json_t *r = path_exists(res) ? json_load_file(res, 0, NULL) : NULL, *p;

	if (!r) {
		ro.job_path = o->job_path;
		ro.kernel = o->side[side].kernel;
		ro.nset = ab_side_sets(o, side, sets);
		ro.sets = sets;
		ro.out_dir = dir;
		ro.backend = o->backend;
		ro.dest = o->uri;
		ro.quiet = 1;
		ro.profile = "insns";
		info("ab: the profiled run of %s (%s), not measured", sides[side], o->side[side].kernel);
		util_quiet++;
		run_one(&ro);
		util_quiet--;
		r = json_load_file(res, 0, NULL);
	}
	p = json_object_get(r, "profile");
	if (!r)
		why = xasprintf("the %s side's profiled run wrote no result.json", sides[side]);
	else if (strcmp(jget_str(r, "status"), "ok"))
		why = xasprintf("the %s side's profiled run: %s: %s", sides[side],
				jget_str(r, "status"), jget_str(r, "reason"));
	else if (!p || json_object_get(p, "absent"))
		why = xasprintf("the %s side's profile: %s", sides[side],
				p ? jget_str(p, "absent") : "none recorded");
	json_decref(r);
	free(res);
	return why;
}

/* the differential flame graph of the two sides' stacks: @diff's "flame", or why none */
static void flame(json_t *diff, const char *top, char *const dirs[2])
{
	char *st[2], *svg = xasprintf("%s/%s", top, FLAME_FILE);
	int s;

	for (s = 0; s < 2; s++)
		st[s] = xasprintf("%s/%s", dirs[s], STACKS_FILE);
	if (!path_exists(st[0]) || !path_exists(st[1]))
		json_object_set_new(diff, "flame_absent",
				    json_string("a side's profile has no call stacks"));
	else if (flame_svg(svg, st[0], st[1]) < 0)
		json_object_set_new(diff, "flame_absent", json_string(error_last()));
	else
		json_object_set_new(diff, "flame", json_string("profile/" FLAME_FILE));
	for (s = 0; s < 2; s++)
		free(st[s]);
	free(svg);
}

int ab_profile(const struct ab_opts *o)
{
	char *top = xasprintf("%s/profile", o->out_dir), *dirs[2], *why = NULL, *path;
	json_t *diff = NULL;
	int s, ret;

	dirs[0] = xasprintf("%s/stock", top);
	dirs[1] = xasprintf("%s/patched", top);
	if (mkdir_p(top, 0755) < 0) {
		why = xasprintf("cannot make '%s'", top);
	} else {
		for (s = 0; s < 2 && !why; s++)
			why = profiled_run(o, s, dirs[s]);
	}
	if (!why && !(diff = profile_diff(dirs[0], dirs[1])))
		why = xstrdup(error_last());
	if (!why)
		flame(diff, top, dirs);
	if (why) {
		warning("ab: no profile diff: %s", why);
		diff = json_pack("{s:s, s:s}", "profiler", "insns", "absent", why);
	}
	path = xasprintf("%s/diff.json", top);
	ret = write_json_atomic(path, diff);
	free(path);
	json_decref(diff);
	free(why);
	free(dirs[0]);
	free(dirs[1]);
	free(top);
	return ret;
}

json_t *ab_profile_load(const char *dir)
{
	char *path = xasprintf("%s/profile/diff.json", dir);
	json_t *j = path_exists(path) ? json_load_file(path, 0, NULL) : NULL;

	free(path);
	return j;
}
