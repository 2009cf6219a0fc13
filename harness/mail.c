/*
 * mail.c - kpair report --mail DIR: a plain-text message a kernel developer can send to a
 * list as it is, for an A/B (comparison.json), a bisect (bisect.json) or a night
 * (summary.json): the finding in one sentence, a fixed-width table with CIs, the kernels by
 * commit and subject, the config, the job file inline, the commands that reproduce it from a
 * fresh clone, and after a bisect that found a commit a "#regzbot introduced:" line. Written
 * to DIR/mail.txt and printed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mail.h"
#include "spawn.h"
#include "summary.h"
#include "util.h"

static json_t *load(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	json_t *j = path_exists(p) ? json_load_file(p, 0, NULL) : NULL;

	free(p);
	return j;
}

static void pct(char *buf, size_t n, double ratio)
{
	if (isfinite(ratio))
		snprintf(buf, n, "%+.1f%%", 100 * (ratio - 1));
	else
		snprintf(buf, n, "-");
}

/* the fixed-width table of @metrics (comparison.json's) */
static void table(struct text *t, json_t *metrics)
{
	json_t *m;
	const char *name;

	text_add(t, "  %-24s %12s %12s %8s %18s %8s  %s\n", "metric", "stock", "patched", "change",
		 "95% CI", "p", "verdict");
	json_object_foreach(metrics, name, m) {
		char label[64], ch[16], lo[16], hi[16], ci[40];

		if (!strcmp(jget_str(m, "better"), "none"))
			continue;
		snprintf(label, sizeof(label), "%s (%s)", name, jget_str(m, "unit"));
		pct(ch, sizeof(ch), jget_num(m, "ratio"));
		pct(lo, sizeof(lo), jget_num(m, "ratio_ci_low"));
		pct(hi, sizeof(hi), jget_num(m, "ratio_ci_high"));
		snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
		text_add(t, "  %-24s %12.6g %12.6g %8s %18s %8.2g  %s\n", label,
			 jget_num(m, "median_a"), jget_num(m, "median_b"), ch, ci,
			 jget_num(m, "p_adjusted"), jget_str(m, "verdict"));
	}
}

/* stdout of a git command in kpair's own tree, trimmed ("" when it fails) */
static char *kpair_git(const char *a, const char *b, const char *c)
{
	const char *argv[] = { "git", "-C", kpair_root(), a, b, c, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	char *out;

	if (spawn_run(argv, 10000, &r) < 0 || r.exit_code) {
		spawn_result_release(&r);
		return xstrdup("");
	}
	out = xstrdup(r.out);
	out[strcspn(out, "\n")] = 0;
	spawn_result_release(&r);
	return out;
}

/* the command that makes side @s's kernel in a fresh clone */
static void kernel_recipe(struct text *t, json_t *s)
{
	json_t *k = json_object_get(s, "kernel"), *src = json_object_get(k, "source"), *p;
	json_t *git = json_object_get(src, "git");
	const char *id = jget_str(s, "kernel_id"), *type = jget_str(src, "type");
	size_t i;

	if (!strcmp(type, "debian-package")) {
		text_add(t, "  harness/kpair kernel fetch debian:%s\n", id);
		return;
	}
	if (strcmp(type, "build")) {
		text_add(t, "  # %s: %s, built outside kpair: kpair kernel import it\n", id, type);
		return;
	}
	text_add(t, "  harness/kpair kernel build --source");
	text_shell_word(t, json_is_object(git) ? jget_str(git, "repository") : jget_str(src, "source"));
	if (json_is_object(git))
		text_add(t, " --rev %s", jget_str(git, "commit"));
	json_array_foreach(json_object_get(src, "patches"), i, p) {
		text_add(t, " --patch");
		text_shell_word(t, jget_str(p, "file"));
	}
	if (*jget_str(json_object_get(src, "config"), "file"))
		text_add(t, " --config %s.config	# kpair's images/kernels/%s/config", id, id);
	text_add(t, "\n");
}

static void reproduce(struct text *t, const char *command, json_t *cmp)
{
	char *url = kpair_git("remote", "get-url", "origin"), *head = kpair_git("rev-parse", "HEAD",
										NULL);

	text_add(t, "\nTo reproduce (a fresh clone of kpair: make builds it and installs what it "
		 "needs):\n\n  git clone %s kpair && cd kpair\n", *url ? url : "<kpair's repository>");
	if (*head)
		text_add(t, "  git checkout %.12s\n", head);
	text_add(t, "  make\n");
	if (cmp) {
		json_t *sd = json_object_get(cmp, "sides");

		kernel_recipe(t, json_object_get(sd, "stock"));
		if (strcmp(jget_str(json_object_get(sd, "stock"), "kernel_id"),
			   jget_str(json_object_get(sd, "patched"), "kernel_id")))
			kernel_recipe(t, json_object_get(sd, "patched"));
	}
	text_add(t, "  %s\n", command);
	free(url);
	free(head);
}

static void job_inline(struct text *t, const char *path)
{
	char *text = NULL, *full = path && *path != '/' ? xasprintf("%s/%s", kpair_root(), path) :
				   xstrdup(path ? path : "");
	char *line, *save = NULL;

	if (!*full || read_file(full, &text, NULL) < 0) {
		free(full);
		return;
	}
	{
		const char *root = kpair_root();
		size_t n = strlen(root);

		if (!strncmp(path, root, n) && path[n] == '/')
			path += n + 1;
	}
	text_add(t, "\nThe job file (%s):\n\n", path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		text_add(t, "  %s\n", line);
	free(text);
	free(full);
}

/* the kernels, their configs and the job's settings */
static void sides(struct text *t, json_t *cmp)
{
	json_t *job = json_object_get(cmp, "job"), *disk = json_object_get(job, "disk");
	int k;

	text_add(t, "\nKernels:\n");
	for (k = 0; k < 2; k++) {
		json_t *s = json_object_get(json_object_get(cmp, "sides"), k ? "patched" : "stock");
		json_t *src = json_object_get(json_object_get(s, "kernel"), "source");
		json_t *cfg = json_object_get(src, "config");

		text_add(t, "  %-8s ", !strcmp(jget_str(cmp, "kind"), "calibrate") ? (k ? "A':" : "A:") :
			 k ? "patched:" : "stock:");
		summary_kernel_words(t, s);
		text_add(t, "\n           config: %s\n",
			 !strcmp(jget_str(src, "type"), "debian-package") ? "Debian's, as packaged" :
			 *jget_str(cfg, "file") ? jget_str(cfg, "file") :
			 *jget_str(src, "fragment") ? jget_str(src, "fragment") :
			 *jget_str(src, "config") ? jget_str(src, "config") : "-");
	}
	text_add(t, "\nSetup: %s mode, %lld vCPU, %lld MiB, %s on a %lld MiB %s-backed disk, accel "
		 "%s, host %s\n", jget_str(job, "mode"), (long long)json_integer_value(
		 json_object_get(job, "cpus")), (long long)json_integer_value(json_object_get(job,
		 "memory")) >> 20, jget_str(disk, "fs"), (long long)json_integer_value(
		 json_object_get(disk, "size")) >> 20, jget_str(disk, "backing"),
		 jget_str(cmp, "accel"), jget_str(json_object_get(cmp, "host"), "cpu"));
}

static char *ab_mail(json_t *cmp)
{
	struct text t = { 0 };
	json_t *sum = json_object_get(cmp, "summary");

	text_add(&t, "Subject: [kpair] %s: %s\n\n%s\n\n", jget_str(json_object_get(cmp, "job"), "name"),
		 json_string_value(json_array_get(sum, 0)), json_string_value(json_array_get(sum, 0)));
	table(&t, json_object_get(cmp, "metrics"));
	sides(&t, cmp);
	job_inline(&t, jget_str(json_object_get(cmp, "job"), "file"));
	reproduce(&t, jget_str(cmp, "command"), cmp);
	text_add(&t, "\n-- \nkpair A/B, %zu runs (%s)\n", json_array_size(json_object_get(cmp, "order")),
		 jget_str(cmp, "format"));
	return t.s;
}

static char *bisect_mail(json_t *b, const char *dir)
{
	struct text t = { 0 };
	json_t *fb = json_object_get(b, "first_bad"), *git = json_object_get(b, "git"), *e, *last = NULL;
	json_t *cmp = NULL;
	size_t i;

	if (json_is_object(fb) && git)
		text_add(&t, "Subject: [kpair] %s: %s regressed by %.12s (\"%s\")\n\nBisected %s..%s "
			 "(%lld commits) on %s: the first bad commit is %s (\"%s\")%s%s.\n\n",
			 jget_str(b, "metric"), jget_str(b, "job"), jget_str(fb, "commit"),
			 jget_str(fb, "subject"), jget_str(git, "good"), jget_str(git, "bad"),
			 (long long)jget_num(git, "commits"), jget_str(b, "metric"),
			 jget_str(fb, "commit"), jget_str(fb, "subject"),
			 *jget_str(fb, "author") ? " by " : "", jget_str(fb, "author"));
	else if (json_is_object(fb))
		text_add(&t, "Subject: [kpair] %s: %s regressed by patch %s\n\nBisected the series on "
			 "%s: the first bad patch is %s.\n\n", jget_str(b, "metric"), jget_str(b, "job"),
			 jget_str(fb, "patch"), jget_str(b, "metric"), jget_str(fb, "patch"));
	else
		text_add(&t, "Subject: [kpair] %s: bisect on %s found no first bad %s\n\n%s\n\n",
			 jget_str(b, "job"), jget_str(b, "metric"), git ? "commit" : "patch",
			 jget_str(json_object_get(b, "search"), "why"));
	text_add(&t, "Each step (an A/B of %s against the base):\n\n  %-12s %-40s %8s %18s  %s\n",
		 jget_str(b, "metric"), git ? "commit" : "patches", "subject", "change", "95% CI",
		 "result");
	json_array_foreach(json_object_get(b, "steps"), i, e) {
		char ch[16], lo[16], hi[16], ci[40], what[16];

		pct(ch, sizeof(ch), jget_num(e, "ratio"));
		pct(lo, sizeof(lo), jget_num(e, "ratio_ci_low"));
		pct(hi, sizeof(hi), jget_num(e, "ratio_ci_high"));
		snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
		if (git)
			snprintf(what, sizeof(what), "%.12s", jget_str(e, "commit"));
		else
			snprintf(what, sizeof(what), "1..%lld", (long long)jget_num(e, "patches"));
		text_add(&t, "  %-12s %-40.40s %8s %18s  %s\n", what,
			 git ? jget_str(e, "subject") : jget_str(e, "last_patch"), ch, ci,
			 jget_str(e, "result"));
		last = e;
	}
	if (last && *jget_str(last, "dir")) {
		char *p = *jget_str(last, "dir") == '/' ? xstrdup(jget_str(last, "dir")) :
			  xasprintf("%s/%s", dir, jget_str(last, "dir"));

		cmp = load(p, "comparison.json");
		free(p);
	}
	if (cmp) {
		text_add(&t, "\nThe last step's A/B:\n\n");
		table(&t, json_object_get(cmp, "metrics"));
		sides(&t, cmp);
	}
	job_inline(&t, jget_str(b, "job"));
	{
		char *cmd = git ? xasprintf("harness/kpair bisect %s --source %s --good %s --bad %s "
					    "--metric %s", jget_str(b, "job"), jget_str(b, "source"),
					    jget_str(git, "good"), jget_str(git, "bad"),
					    jget_str(b, "metric")) :
			    xasprintf("harness/kpair bisect %s --source %s --series %s --metric %s",
				      jget_str(b, "job"), jget_str(b, "source"), jget_str(b, "series"),
				      jget_str(b, "metric"));

		reproduce(&t, cmd, NULL);
		free(cmd);
	}
	if (json_is_object(fb) && git)
		text_add(&t, "\n#regzbot introduced: %.12s\n", jget_str(fb, "commit"));
	json_decref(cmp);
	return t.s;
}

/* an entry's bisect (nightly.bisect = auto): its outcome, and the commit it named */
static void night_bisect(struct text *t, json_t *e, const char *date, struct text *regz)
{
	json_t *b = json_object_get(e, "bisect"), *fb = json_object_get(b, "first_bad");

	if (!b)
		return;
	if (json_is_object(fb)) {
		text_add(t, "  bisected %s: the first bad commit is %s (\"%s\")\n    by %s, %lld "
			 "commits between %s and %s, %lld A/B steps (kpair report --mail %s/%s)\n",
			 jget_str(b, "metric"), jget_str(fb, "commit"), jget_str(fb, "subject"),
			 jget_str(fb, "author"), (long long)jget_num(b, "commits"),
			 jget_str(json_object_get(b, "good"), "words"),
			 jget_str(json_object_get(b, "bad"), "words"), (long long)jget_num(b, "ab_steps"),
			 date, jget_str(b, "dir"));
		text_add(regz, "#regzbot introduced: %.12s\n", jget_str(fb, "commit"));
	} else {
		text_add(t, "  not bisected: %s\n", jget_str(b, "why"));
	}
}

static char *night_mail(json_t *n)
{
	struct text t = { 0 }, regz = { 0 };
	json_t *e, *c;
	size_t i, k;

	text_add(&t, "Subject: [kpair] nightly %s %s: %s\n\n", jget_str(n, "name"), jget_str(n, "date"),
		 jget_str(n, "status"));
	json_array_foreach(json_object_get(n, "entries"), i, e) {
		char *tonight = summary_kernel_id_words(jget_str(e, "kernel"));
		char *base = summary_kernel_id_words(jget_str(json_object_get(e, "baseline"), "kernel"));

		text_add(&t, "%s: %s (%s)\n", jget_str(e, "key"), jget_str(e, "status"),
			 jget_str(e, "reason"));
		json_array_foreach(json_object_get(json_object_get(e, "changepoints"), "new"), k, c)
			text_add(&t, "  change point: %s %s %+.1f %% (95 %% CI %+.1f to %+.1f %%) from %s\n",
				 jget_str(c, "metric"), jget_str(c, "kind"), jget_num(c, "change_pct"),
				 100 * (jget_num(c, "ci_low") - 1), 100 * (jget_num(c, "ci_high") - 1),
				 jget_str(c, "night_label"));
		text_add(&t, "  kernel %s\n  against %s (%s)\n", tonight, base,
			 jget_str(json_object_get(e, "baseline"), "night"));
		night_bisect(&t, e, jget_str(n, "date"), &regz);
		text_add(&t, "\n");
		free(tonight);
		free(base);
	}
	text_add(&t, "Each entry's A/B: kpair report --mail %s/<entry>\n", jget_str(n, "date"));
	if (regz.s)
		text_add(&t, "\n%s", regz.s);
	free(regz.s);
	return t.s;
}

int report_mail(const char *dir)
{
	json_t *j;
	char *text = NULL, *path;
	int ret;

	if ((j = load(dir, "bisect.json")))
		text = bisect_mail(j, dir);
	else if ((j = load(dir, "comparison.json")))
		text = ab_mail(j);
	else if ((j = load(dir, "summary.json")))
		text = night_mail(j);
	else
		return error("report --mail: '%s' has no comparison.json, bisect.json or summary.json",
			     dir);
	json_decref(j);
	path = xasprintf("%s/mail.txt", dir);
	ret = write_file_atomic(path, text, strlen(text));
	if (!ret)
		fputs(text, stdout);
	free(path);
	free(text);
	return ret;
}
