/* history.c - a night's summary.json and junit.xml; the index of nights and its trend page */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "history.h"
#include "html.h"
#include "util.h"

json_t *history_load(const char *root)
{
	char *path = xasprintf("%s/index.json", root);
	json_error_t err;
	json_t *j;

	if (!path_exists(path)) {
		free(path);
		return json_pack("{s:s, s:[]}", "format", INDEX_FORMAT, "nights");
	}
	j = json_load_file(path, 0, &err);
	if (!j || !json_is_array(json_object_get(j, "nights"))) {
		error("%s: %s", path, j ? "no nights array" : err.text);
		json_decref(j);
		j = NULL;
	}
	free(path);
	return j;
}

json_t *history_last_good(json_t *index, const char *date, const char *key, const char **night)
{
	json_t *nights = json_object_get(index, "nights"), *best = NULL, *n, *e;
	const char *best_date = NULL;
	size_t i, k;

	json_array_foreach(nights, i, n) {
		const char *d = jget_str(n, "date");

		if (strcmp(d, date) >= 0 || (best_date && strcmp(d, best_date) <= 0))
			continue;
		json_array_foreach(json_object_get(n, "entries"), k, e)
			if (!strcmp(jget_str(e, "key"), key) && json_is_string(json_object_get(e, "kernel")) &&
			    (json_object_get(e, "baseline_ok") ? json_is_true(json_object_get(e, "baseline_ok")) :
			     !strcmp(jget_str(e, "status"), "passed"))) {
				best = e;
				best_date = d;
			}
	}
	*night = best_date;
	return best;
}

/*
 * "write_s regressed: 0.104 s -> 0.412 s (+296.2%, 95% CI +250.0% to +350.0%), p_adjusted 0.016";
 * a change past 4 digits of percent as a ratio (x50634), "-" for what is not known (null)
 */
static void metric_message(struct text *t, const char *name, json_t *m)
{
	const char *unit = jget_str(m, "unit");
	char ch[16], lo[16], hi[16], a[32], b[32], p[32];

	fmt_change(ch, sizeof(ch), jget_num(m, "ratio"));
	fmt_change(lo, sizeof(lo), jget_num(m, "ratio_ci_low"));
	fmt_change(hi, sizeof(hi), jget_num(m, "ratio_ci_high"));
	fmt_known(a, sizeof(a), "%.6g", jget_num(m, "median_a"));
	fmt_known(b, sizeof(b), "%.6g", jget_num(m, "median_b"));
	fmt_known(p, sizeof(p), "%.3g", jget_num(m, "p_adjusted"));
	text_add(t, "%s %s: %s %s -> %s %s (%s, 95%% CI %s to %s), p_adjusted %s, n %lld vs %lld",
		 name, jget_str(m, "verdict"), a, unit, b, unit, ch, lo, hi, p,
		 (long long)json_integer_value(json_object_get(m, "n_a")),
		 (long long)json_integer_value(json_object_get(m, "n_b")));
}

/*
 * A metric's testcase fails when the change points judge the entry (3 nights or more) and
 * one for the worse was first confirmed tonight; before that, when the A/B regressed it.
 * The change point's sentence into @why (caller frees) when it is the reason.
 */
static int metric_fails(json_t *e, const char *name, json_t *m, char **why)
{
	json_t *cp = json_object_get(e, "changepoints"), *c;
	size_t i;

	*why = NULL;
	if (!cp || json_object_get(cp, "note"))
		return !strcmp(jget_str(m, "verdict"), "regressed");
	json_array_foreach(json_object_get(cp, "new"), i, c)
		if (!strcmp(jget_str(c, "metric"), name) && json_is_true(json_object_get(c, "worse"))) {
			*why = xasprintf("change point: %s %+.1f %% (95 %% CI %+.1f to %+.1f %%) from %s, "
					 "p %.2g", jget_str(c, "kind"), jget_num(c, "change_pct"),
					 100 * (jget_num(c, "ci_low") - 1),
					 100 * (jget_num(c, "ci_high") - 1), jget_str(c, "night_label"),
					 jget_num(c, "p"));
			return 1;
		}
	return 0;
}

static void junit_entry(struct text *x, json_t *night, json_t *e, int *tests, int *fails,
			int *errs)
{
	json_t *metrics = json_object_get(e, "metrics"), *m;
	int infra = !strcmp(jget_str(e, "status"), "infra-failed");
	int nt = (int)json_object_size(metrics) + infra, nf = 0;
	const char *name;

	json_object_foreach(metrics, name, m) {
		char *w;

		nf += metric_fails(e, name, m, &w);
		free(w);
	}
	text_add(x, "  <testsuite name=\"");
	text_esc(x, jget_str(e, "key"));
	text_add(x, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.1f\" timestamp=\"", nt, nf,
	    infra, isfinite(jget_num(e, "wall_s")) ? jget_num(e, "wall_s") : 0);
	text_esc(x, jget_str(night, "started"));
	text_add(x, "\">\n    <properties>\n      <property name=\"kernel\" value=\"");
	text_esc(x, jget_str(e, "kernel"));
	text_add(x, "\"/>\n      <property name=\"baseline\" value=\"");
	text_esc(x, jget_str(json_object_get(e, "baseline"), "kernel"));
	text_add(x, "\"/>\n      <property name=\"baseline_night\" value=\"");
	text_esc(x, jget_str(json_object_get(e, "baseline"), "night"));
	text_add(x, "\"/>\n    </properties>\n");
	json_object_foreach(metrics, name, m) {
		struct text msg = { 0 };
		char *cpwhy = NULL;

		metric_message(&msg, name, m);
		text_add(x, "    <testcase classname=\"kpair.nightly.");
		text_esc(x, jget_str(e, "key"));
		text_add(x, "\" name=\"");
		text_esc(x, name);
		text_add(x, "\" time=\"0\">\n");
		if (metric_fails(e, name, m, &cpwhy)) {
			text_add(x, "      <failure type=\"regressed\" message=\"");
			text_esc(x, cpwhy ? cpwhy : msg.s);
			text_add(x, "; baseline ");
			text_esc(x, jget_str(json_object_get(e, "baseline"), "kernel"));
			text_add(x, ", tonight ");
			text_esc(x, jget_str(e, "kernel"));
			text_add(x, "\">");
			text_esc(x, cpwhy ? msg.s : jget_str(m, "why"));
			text_add(x, "</failure>\n");
		} else {
			text_add(x, "      <system-out>");
			text_esc(x, msg.s);
			text_add(x, "</system-out>\n");
		}
		text_add(x, "    </testcase>\n");
		free(cpwhy);
		free(msg.s);
	}
	if (infra) {
		text_add(x, "    <testcase classname=\"kpair.nightly.");
		text_esc(x, jget_str(e, "key"));
		text_add(x, "\" name=\"runs\" time=\"0\">\n      <error type=\"infra-failed\" message=\"");
		text_esc(x, jget_str(e, "reason"));
		text_add(x, "\"/>\n    </testcase>\n");
	}
	text_add(x, "  </testsuite>\n");
	*tests += nt;
	*fails += nf;
	*errs += infra;
}

int history_write_night(const char *dir, json_t *night)
{
	char *sp = xasprintf("%s/summary.json", dir), *jp = xasprintf("%s/junit.xml", dir);
	struct text body = { 0 }, x = { 0 };
	int tests = 0, fails = 0, errs = 0, ret = -1;
	size_t i;
	json_t *e;

	if (write_json_atomic(sp, night) < 0)
		goto out;
	text_add(&body, "%s", "");
	json_array_foreach(json_object_get(night, "entries"), i, e)
		junit_entry(&body, night, e, &tests, &fails, &errs);
	text_add(&x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kpair nightly ");
	text_esc(&x, jget_str(night, "name"));
	text_add(&x, " %s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.1f\">\n%s</testsuites>\n",
	    jget_str(night, "date"), tests, fails, errs,
	    isfinite(jget_num(night, "wall_s")) ? jget_num(night, "wall_s") : 0, body.s);
	ret = write_file_atomic(jp, x.s, x.len);
out:
	free(body.s);
	free(x.s);
	free(sp);
	free(jp);
	return ret;
}

static int by_date(const void *a, const void *b)
{
	return strcmp(jget_str(*(json_t *const *)a, "date"), jget_str(*(json_t *const *)b, "date"));
}

/* nights sorted by date, @night in place of one of the same date (new reference) */
static json_t *merge(json_t *index, json_t *night)
{
	json_t *old = json_object_get(index, "nights"), *v[4096], *out = json_array(), *n;
	size_t i, k = 0;

	json_array_foreach(old, i, n)
		if (strcmp(jget_str(n, "date"), jget_str(night, "date")) && k < ARRAY_SIZE(v) - 1)
			v[k++] = n;
	v[k++] = night;
	qsort(v, k, sizeof(v[0]), by_date);
	for (i = 0; i < k; i++)
		json_array_append(out, v[i]);
	return out;
}

/* widen [*lo, *hi] to hold @v (NaN: not yet set) */
static void y_range(double *lo, double *hi, double v)
{
	if (!isfinite(v))
		return;
	if (isnan(*lo) || v < *lo)
		*lo = v;
	if (isnan(*hi) || v > *hi)
		*hi = v;
}

static long night_at(json_t *nights, const char *date)
{
	json_t *n;
	size_t i;

	json_array_foreach(nights, i, n)
		if (date && !strcmp(jget_str(n, "date"), date))
			return (long)i;
	return -1;
}

/*
 * The change points of @metric the newest night's analysis confirmed (nightly-cp.c), as
 * gnuplot marks: a step a dashed line before its first night, a drift a shaded band
 */
static void cp_marks(struct text *sc, json_t *nights, const char *metric)
{
	json_t *last = json_array_get(nights, json_array_size(nights) - 1), *e, *c;
	size_t i, k;

	json_array_foreach(json_object_get(last, "entries"), i, e) {
		json_t *list = json_object_get(json_object_get(json_object_get(e, "changepoints"),
							       "metrics"), metric);

		json_array_foreach(list, k, c) {
			long a = night_at(nights, jget_str(c, "night_label"));
			long b = night_at(nights, jget_str(c, "end_label"));

			if (a < 0 || !json_is_true(json_object_get(c, "confirmed")))
				continue;
			if (!strcmp(jget_str(c, "kind"), "step"))
				text_add(sc, "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dt 2 "
					 "lw 2 lc rgb '#0050c0'\nset label '%s step %+.1f %%' at %.1f, "
					 "graph 0.95 left offset 0.5,0 tc rgb '#0050c0'\n", a - 0.5, a - 0.5,
					 jget_str(e, "key"), jget_num(c, "change_pct"), a - 0.5);
			else if (b >= a)
				text_add(sc, "set object rect from %.1f, graph 0 to %.1f, graph 1 behind "
					 "fc rgb '#ffe8a0' fs solid 0.6 noborder\nset label '%s drift %+.1f %%'"
					 " at %.1f, graph 0.9 left offset 0.5,0\n", a - 0.5, b + 0.5,
					 jget_str(e, "key"), jget_num(c, "change_pct"), a - 0.5);
		}
	}
}

/* one trend plot of @metric: tonight's median per night and entry, regressed nights
 * marked, the change points of the newest analysis drawn */
static int trend_plot(const char *pdir, const char *metric, const char *unit, json_t *nights,
		      struct text *h)
{
	struct text sc = { 0 }, reg = { 0 }, xt = { 0 };
	json_t *keys = json_object(), *n, *e, *m;
	const char *key;
	char *rp = xasprintf("%s/%s-regressed.dat", pdir, metric), *svg, *sp, *div = NULL, *why = NULL;
	double lo = NAN, hi = NAN;
	size_t i, k;
	int ret = -1, first = 1;

	text_add(&reg, "%s", "");
	json_array_foreach(nights, i, n) {
		text_add(&xt, "%s\"%s\" %zu", i ? ", " : "", jget_str(n, "date"), i);
		json_array_foreach(json_object_get(n, "entries"), k, e) {
			json_t *d;

			m = json_object_get(json_object_get(e, "metrics"), metric);
			if (!m || isnan(jget_num(m, "median_b")))
				continue;
			d = json_object_get(keys, jget_str(e, "key"));
			if (!d) {
				d = json_string("");
				json_object_set_new(keys, jget_str(e, "key"), d);
			}
			{
				char *line = xasprintf("%s%zu %.9g %.9g\n", json_string_value(d), i,
						       jget_num(m, "median_b"), jget_num(m, "median_a"));

				y_range(&lo, &hi, jget_num(m, "median_b"));
				y_range(&lo, &hi, jget_num(m, "median_a"));

				json_string_set(d, line);
				free(line);
			}
			if (!strcmp(jget_str(m, "verdict"), "regressed"))
				text_add(&reg, "%zu %.9g\n", i, jget_num(m, "median_b"));
		}
	}
	svg = xasprintf("%s/%s.svg", pdir, metric);
	sp = xasprintf("%s/%s.gp", pdir, metric);
	text_add(&sc, "set terminal svg size 720,360 font 'sans,10' background '#ffffff'\n"
		 "set termoption noenhanced\nset grid\nset key outside top center horizontal\n"
		 "set output '%s'\nset title '%s: median per night (tonight: filled, baseline: open)'\n"
		 "set ylabel '%s'\nset xrange [-0.5:%zu.5]\nset xtics rotate by -30 (%s)\n",
		 svg, metric, unit, json_array_size(nights) - 1, xt.s);
	/* gnuplot refuses an empty y range: one night or a constant metric gets a padded one */
	if (lo == hi)
		text_add(&sc, "set yrange [%.17g:%.17g]\n", lo - (lo ? fabs(lo) * 0.1 : 1),
			 hi + (hi ? fabs(hi) * 0.1 : 1));
	cp_marks(&sc, nights, metric);
	text_add(&sc, "plot ");
	json_object_foreach(keys, key, n) {
		char *dp = xasprintf("%s/%s-%s.dat", pdir, metric, key);

		if (write_file_atomic(dp, json_string_value(n), strlen(json_string_value(n))) < 0) {
			free(dp);
			goto out;
		}
		text_add(&sc, "%s'%s' using 1:2 with linespoints pt 7 title '%s', "
			 "'%s' using 1:3 with points pt 4 title '%s baseline'", first ? "" : ", ", dp,
		    key, dp, key);
		first = 0;
		free(dp);
	}
	if (first) {
		ret = 0;	/* no entry measured this metric */
		goto out;
	}
	if (reg.len) {
		if (write_file_atomic(rp, reg.s, reg.len) < 0)
			goto out;
		text_add(&sc, ", '%s' using 1:2 with points pt 7 ps 2.2 lc rgb '#d00000' title 'regressed'", rp);
	}
	text_add(&sc, "\n");
	text_add(h, "<h2 class=\"metric\">");
	text_esc(h, metric);
	text_add(h, "</h2>\n");
	/* a plot that cannot be drawn costs its plot, not the page */
	if (html_svg(sp, sc.s, svg, &div, &why) < 0)
		html_plot_note(h, metric, why);
	else
		text_add(h, "%s", div);
	ret = 0;
out:
	json_decref(keys);
	free(why);
	free(div);
	free(sc.s);
	free(reg.s);
	free(xt.s);
	free(rp);
	free(svg);
	free(sp);
	return ret;
}

static void nights_table(struct text *h, json_t *nights)
{
	json_t *n, *e, *m;
	const char *name;
	char ch[16];
	size_t i, k;

	text_add(h, "<table><tr><th>night</th><th>status</th><th>entry</th><th>baseline</th>"
	       "<th>tonight</th><th>verdicts</th></tr>\n");
	json_array_foreach(nights, i, n) {
		json_array_foreach(json_object_get(n, "entries"), k, e) {
			text_add(h, "<tr class=\"%s\"><td><a href=\"%s/summary.json\">%s</a> "
			       "<a href=\"%s/junit.xml\">junit</a></td><td>%s</td>"
			       "<td><a href=\"%s/%s/report.html\">", jget_str(e, "status"), jget_str(n, "date"),
			    jget_str(n, "date"), jget_str(n, "date"), jget_str(e, "status"), jget_str(n, "date"),
			    jget_str(e, "dir"));
			text_esc(h, jget_str(e, "key"));
			text_add(h, "</a></td><td>");
			text_esc(h, jget_str(json_object_get(e, "baseline"), "kernel"));
			text_add(h, "</td><td>");
			text_esc(h, jget_str(e, "kernel"));
			text_add(h, "</td><td>");
			json_object_foreach(json_object_get(e, "metrics"), name, m) {
				text_esc(h, name);
				fmt_change(ch, sizeof(ch), jget_num(m, "ratio"));
				text_add(h, " <b>%s</b> %s; ", jget_str(m, "verdict"), ch);
			}
			text_esc(h, !strcmp(jget_str(e, "status"), "infra-failed") ? jget_str(e, "reason") : "");
			text_add(h, "</td></tr>\n");
		}
	}
	text_add(h, "</table>\n");
}

static int index_html(const char *root, json_t *nights)
{
	char *pdir = xasprintf("%s/plots", root), *path = xasprintf("%s/index.html", root);
	json_t *units = json_object(), *n, *e, *m;
	struct text h = { 0 };
	const char *name;
	size_t i, k;
	int ret = -1;

	if (strchr(root, '\'')) {
		error("nightly: '%s' has a quote, which gnuplot strings cannot hold", root);
		goto out;
	}
	if (mkdir_p(pdir, 0755) < 0)
		goto out;
	text_add(&h, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kpair nightly</title>\n"
		"<style>body{font-family:sans-serif;margin:2em;max-width:1200px}"
		"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px}"
		"tr.regressed td:nth-child(2){background:#fcc}tr.passed td:nth-child(2){background:#cfc}"
		"tr.infra-failed td:nth-child(2){background:#fd8}.plot{margin:4px}</style></head><body>\n"
		"<h1>kpair nightly: %zu nights</h1>\n", json_array_size(nights));
	nights_table(&h, nights);
	json_array_foreach(nights, i, n)
		json_array_foreach(json_object_get(n, "entries"), k, e)
			json_object_foreach(json_object_get(e, "metrics"), name, m)
				if (!json_object_get(units, name))
					json_object_set_new(units, name, json_string(jget_str(m, "unit")));
	json_object_foreach(units, name, m) {
		char safe[96];
		size_t j;

		for (j = 0; name[j] && j + 1 < sizeof(safe); j++)
			safe[j] = strchr("'\"\\/ ", name[j]) ? '_' : name[j];
		safe[j] = '\0';
		if (trend_plot(pdir, safe, json_string_value(m), nights, &h) < 0)
			goto out;
	}
	text_add(&h, "</body></html>\n");
	ret = write_file_atomic(path, h.s, h.len);
out:
	json_decref(units);
	free(h.s);
	free(pdir);
	free(path);
	return ret;
}

int history_update(const char *root, json_t *index, json_t *night)
{
	char *path = xasprintf("%s/index.json", root);
	json_t *nights = merge(index, night);
	int ret;

	json_object_set(index, "nights", nights);
	ret = write_json_atomic(path, index);
	if (!ret)
		ret = index_html(root, nights);
	json_decref(nights);
	free(path);
	return ret;
}

int history_date_ok(const char *d)
{
	struct tm tm = { 0 };
	char back[16];
	const char *end = strptime(d, "%Y-%m-%d", &tm);

	if (!end || *end)
		return 0;
	strftime(back, sizeof(back), "%Y-%m-%d", &tm);
	return !strcmp(back, d);
}

char *history_today(void)
{
	char buf[16];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
	return xstrdup(buf);
}
