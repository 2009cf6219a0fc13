/* html.c - report.html with inline gnuplot SVGs; gnuplot runs from spawn with a script file */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "html.h"
#include "profilers/profiler.h"
#include "spawn.h"
#include "summary.h"
#include "util.h"

/* a metric name fit for file names and gnuplot strings */
static void safe_name(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] = (in[i] >= 'a' && in[i] <= 'z') || (in[i] >= 'A' && in[i] <= 'Z') ||
			 (in[i] >= '0' && in[i] <= '9') || in[i] == '_' || in[i] == '.' ? in[i] : '_';
	out[i] = '\0';
}

static json_t *side_kernel(json_t *cmp, const char *side)
{
	return json_object_get(json_object_get(json_object_get(cmp, "sides"), side), "kernel_id");
}

static int write_text(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/* the values a plot draws on an axis; gnuplot refuses an empty range, so it is padded */
struct span {
	double lo, hi;
	size_t n;
};

static void span_add(struct span *s, double v)
{
	if (!isfinite(v))
		return;
	if (!s->n || v < s->lo)
		s->lo = v;
	if (!s->n || v > s->hi)
		s->hi = v;
	s->n++;
}

/*
 * "[lo:hi]" around the values, 5 % of their spread either side; a constant
 * value gets 10 % of itself (or 1 for 0); @log: a range for a log axis
 */
static void span_range(const struct span *s, int log, char *buf, size_t len)
{
	double pad = (s->hi - s->lo) * 0.05;

	if (log) {
		snprintf(buf, len, "[%.17g:%.17g]", s->lo / (pad ? 1.2 : 2), s->hi * (pad ? 1.2 : 2));
		return;
	}
	if (s->lo == s->hi)
		pad = s->lo ? fabs(s->lo) * 0.1 : 1;
	else if (pad < fabs(s->lo + s->hi) * 1e-9)	/* a spread below double's digits */
		pad = fabs(s->lo + s->hi) * 1e-9;
	snprintf(buf, len, "[%.17g:%.17g]", s->lo - pad, s->hi + pad);
}

/* run-order data: "index value" for each ok run of @side that has the metric */
static void order_data(struct text *d, json_t *order, const char *side, json_t *values,
		       struct span *x, struct span *y)
{
	size_t i, k = 0;
	json_t *e;

	json_array_foreach(order, i, e) {
		const char *s = json_string_value(json_object_get(e, "side"));
		const char *st = json_string_value(json_object_get(e, "status"));

		if (!s || strcmp(s, side) || !st || strcmp(st, "ok"))
			continue;
		if (k < json_array_size(values) && json_is_number(json_array_get(values, k))) {
			json_int_t idx = json_integer_value(json_object_get(e, "index"));
			double v = json_number_value(json_array_get(values, k));

			text_add(d, "%lld %.9g\n", (long long)idx, v);
			span_add(x, (double)idx);
			span_add(y, v);
		}
		k++;
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* CDF data of every raw value of a side */
static void cdf_data(struct text *d, json_t *raw, struct span *x)
{
	size_t i, j, n = 0, k = 0;
	json_t *run, *v;
	double *all;

	json_array_foreach(raw, i, run)
		n += json_array_size(run);
	if (!n)
		return;
	all = xcalloc(n, sizeof(double));
	json_array_foreach(raw, i, run)
		json_array_foreach(run, j, v)
			all[k++] = json_number_value(v);
	qsort(all, n, sizeof(double), cmp_dbl);
	for (i = 0; i < n; i++) {
		text_add(d, "%.9g %.6f\n", all[i], (double)(i + 1) / (double)n);
		span_add(x, all[i]);
	}
	free(all);
}

/* why gnuplot failed, in one line: its last message without the "script" line N: prefix */
static char *gnuplot_why(const char *err)
{
	const char *end = err + strlen(err), *start, *p;

	while (end > err && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (start = end; start > err && start[-1] != '\n'; start--)
		;
	if (start == end)
		return xstrdup("gnuplot failed and said nothing");
	p = strstr(start, " line ");
	if (start[0] == '"' && p && p < end && (p = strchr(p, ':')) && p < end)
		start = p + 2 <= end ? p + 2 : end;
	return xasprintf("%.*s", (int)(end - start), start);
}

/*
 * run gnuplot on @script; the SVG it wrote, from "<svg" on, into @html;
 * on failure *why (caller frees) says why in one line
 */
static int plot(const char *script_path, const char *script, const char *svg, struct text *html,
		char **why)
{
	const char *argv[] = { "gnuplot", script_path, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	char *text = NULL, *start;
	int ret = -1;

	*why = NULL;
	if (write_text(script_path, script) < 0) {
		*why = xasprintf("cannot write '%s'", script_path);
		return -1;
	}
	if (spawn_run(argv, 60000, &r) < 0) {
		*why = xstrdup("cannot run gnuplot");
		goto out;
	}
	if (r.exit_code) {
		*why = gnuplot_why(r.err);
		goto out;
	}
	if (read_file(svg, &text, NULL) < 0) {
		*why = xasprintf("gnuplot wrote no '%s'", svg);
		goto out;
	}
	start = strstr(text, "<svg");
	if (!start) {
		*why = xasprintf("'%s' is not an SVG", svg);
		goto out;
	}
	text_add(html, "<div class=\"plot\">%s</div>\n", start);
	ret = 0;
out:
	if (ret < 0)
		error("plot '%s': %s", script_path, *why);
	free(text);
	spawn_result_release(&r);
	return ret;
}

int html_svg(const char *script_path, const char *script, const char *svg, char **out,
	     char **why)
{
	struct text b = { 0 };

	*out = NULL;
	if (plot(script_path, script, svg, &b, why) < 0) {
		free(b.s);
		return -1;
	}
	*out = b.s;
	return 0;
}

void html_plot_note(struct text *h, const char *what, const char *why)
{
	text_add(h, "<p class=\"plot-note\">plot ");
	text_esc(h, what);
	text_add(h, " could not be drawn: ");
	text_esc(h, why);
	text_add(h, "</p>\n");
}

static const char *plot_head =
	"set terminal svg size 560,320 font 'sans,10' background '#ffffff'\n"
	"set termoption noenhanced\nset grid\nset key outside top center horizontal\n";

static const char *const kinds[] = { "order", "dist", "cdf" };

/* the data and the script of plot @kind of metric @m; *why when there is nothing to draw */
static int plot_script(int kind, const char *safe, json_t *m, json_t *order, const char *pa,
		       const char *pb, const char *svg, struct text *sc, char **why)
{
	struct text da = { 0 }, db = { 0 };
	struct span x = { 0 }, y = { 0 };
	const char *unit = json_string_value(json_object_get(m, "unit"));
	char xr[96], yr[96];
	int ret = -1, log;

	text_add(&da, "%s", "");
	text_add(&db, "%s", "");
	if (kind == 0) {
		order_data(&da, order, "stock", json_object_get(m, "values_a"), &x, &y);
		order_data(&db, order, "patched", json_object_get(m, "values_b"), &x, &y);
	} else if (kind == 1) {
		json_t *v;
		size_t i;

		json_array_foreach(json_object_get(m, "values_a"), i, v)
			if (json_is_number(v)) {
				text_add(&da, "%.9g\n", json_number_value(v));
				span_add(&y, json_number_value(v));
			}
		json_array_foreach(json_object_get(m, "values_b"), i, v)
			if (json_is_number(v)) {
				text_add(&db, "%.9g\n", json_number_value(v));
				span_add(&y, json_number_value(v));
			}
	} else {
		cdf_data(&da, json_object_get(m, "raw_a"), &x);
		cdf_data(&db, json_object_get(m, "raw_b"), &x);
	}
	if (!(kind == 2 ? x.n : y.n)) {
		*why = xstrdup("no values on either side");
		goto out;
	}
	if (write_text(pa, da.s) < 0 || write_text(pb, db.s) < 0) {
		*why = xasprintf("cannot write '%s'", pa);
		goto out;
	}
	span_range(&y, 0, yr, sizeof(yr));
	text_add(sc, "%sset output '%s'\n", plot_head, svg);
	if (kind == 0) {
		span_range(&x, 0, xr, sizeof(xr));
		text_add(sc, "set title '%s: per run, in run order'\nset xlabel 'run'\n"
			 "set xrange %s\nset yrange %s\nset ylabel '%s'\n"
			 "plot '%s' using 1:2 with linespoints pt 7 title 'stock', "
			 "'%s' using 1:2 with linespoints pt 5 title 'patched'\n",
			 safe, xr, yr, unit, pa, pb);
	} else if (kind == 1) {
		text_add(sc, "set title '%s: distribution'\nset xtics ('stock' 1, 'patched' 2)\n"
			 "set xrange [0.3:2.7]\nset yrange %s\nset ylabel '%s'\nset style fill solid 0.25\n"
			 "set style boxplot nooutliers\nset boxwidth 0.4\n"
			 "plot '%s' using (1):1 with boxplot notitle lc 1, '%s' using (2):1 with boxplot notitle lc 2, "
			 "'%s' using (1+0.15*(rand(0)-0.5)):1 with points pt 7 lc 1 notitle, "
			 "'%s' using (2+0.15*(rand(0)-0.5)):1 with points pt 5 lc 2 notitle\n",
			 safe, yr, unit, pa, pb, pa, pb);
	} else {
		log = x.lo > 0;	/* a log axis holds no zero or negative value */
		span_range(&x, log, xr, sizeof(xr));
		text_add(sc, "set title '%s: CDF of every operation'\nset xlabel '%s'\n%s"
			 "set xrange %s\nset ylabel 'fraction'\nset yrange [0:1]\n"
			 "plot '%s' using 1:2 with steps title 'stock', '%s' using 1:2 with steps title 'patched'\n",
			 safe, unit, log ? "set logscale x\n" : "", xr, pa, pb);
	}
	ret = 0;
out:
	free(da.s);
	free(db.s);
	return ret;
}

/* the plots of one metric; a plot that cannot be drawn leaves a one-line note instead */
static void metric_plots(const char *pdir, const char *no_plots, const char *name, json_t *m, json_t *order,
			 struct text *html)
{
	char safe[96], *pa, *pb, *ps, *svg, *why, *what;
	struct text sc = { 0 };
	int kind;

	safe_name(name, safe, sizeof(safe));
	for (kind = 0; kind < 3; kind++) {
		if (kind == 2 && !json_is_true(json_object_get(m, "per_op")))
			break;
		sc.len = 0;
		why = NULL;
		pa = xasprintf("%s/%s-%s-stock.dat", pdir ?: ".", safe, kinds[kind]);
		pb = xasprintf("%s/%s-%s-patched.dat", pdir ?: ".", safe, kinds[kind]);
		ps = xasprintf("%s/%s-%s.gp", pdir ?: ".", safe, kinds[kind]);
		svg = xasprintf("%s/%s-%s.svg", pdir ?: ".", safe, kinds[kind]);
		if (!pdir)
			why = xstrdup(no_plots);
		else if (plot_script(kind, safe, m, order, pa, pb, svg, &sc, &why) == 0)
			plot(ps, sc.s, svg, html, &why);
		if (why) {
			what = xasprintf("%s-%s", safe, kinds[kind]);
			html_plot_note(html, what, why);
			free(what);
		}
		free(why);
		free(pa);
		free(pb);
		free(ps);
		free(svg);
	}
	free(sc.s);
}

/* a number of comparison.json for the table: "-" where it is null */
static void cell(struct text *h, json_t *m, const char *key, const char *fmt, double scale)
{
	json_t *v = json_object_get(m, key);

	text_add(h, "<td>");
	if (json_is_number(v))
		text_add(h, fmt, json_number_value(v) * scale);
	else
		text_add(h, "-");
	text_add(h, "</td>");
}

static void table(struct text *h, json_t *metrics)
{
	const char *name;
	json_t *m;

	text_add(h, "<table><tr><th>metric</th><th>unit</th><th>n</th><th>stock median</th>"
		  "<th>CV</th><th>patched median</th><th>CV</th><th>change</th><th>95%% CI</th>"
		  "<th title=\"the metric's test (2 min(Mann-Whitney, Welch on log values)) after the "
		  "family rule: the primary metric alone, Benjamini-Hochberg over the others\">p (adjusted)</th>"
		  "<th>p (Welch)</th><th>verdict</th>"
		  "<th title=\"runs whose modified z-score (MAD) exceeds 3.5: flagged, kept\">outliers</th></tr>\n");
	json_object_foreach(metrics, name, m) {
		const char *v = json_string_value(json_object_get(m, "verdict"));
		json_t *r = json_object_get(m, "ratio");
		json_t *lo = json_object_get(m, "ratio_ci_low"), *hi = json_object_get(m, "ratio_ci_high");
		char ch[16], clo[16], chi[16];

		if (!strcmp(json_string_value(json_object_get(m, "better")), "none"))
			continue;
		if (!strcmp(json_string_value(json_object_get(m, "scale")) ?: "", "difference")) {
			/* judged on the difference: a run measured 0 */
			fmt_known(ch, sizeof(ch), "%+.4g", jget_num(m, "difference"));
			fmt_known(clo, sizeof(clo), "%+.4g", jget_num(m, "difference_ci_low"));
			fmt_known(chi, sizeof(chi), "%+.4g", jget_num(m, "difference_ci_high"));
		} else {
			fmt_change(ch, sizeof(ch), json_is_number(r) ? json_number_value(r) : NAN);
			fmt_change(clo, sizeof(clo), json_is_number(lo) ? json_number_value(lo) : NAN);
			fmt_change(chi, sizeof(chi), json_is_number(hi) ? json_number_value(hi) : NAN);
		}
		text_add(h, "<tr class=\"%s\"><td>", v);
		text_esc(h, name);
		if (!strcmp(json_string_value(json_object_get(m, "endpoint")) ?: "", "primary"))
			text_add(h, " <i title=\"named before any run (job.metric, --metric or the "
				  "claim): its p is tested alone; Benjamini-Hochberg covers the others\">"
				  "(primary)</i>");
		text_add(h, "</td><td>");
		text_esc(h, json_string_value(json_object_get(m, "unit")));
		text_add(h, "</td><td>%lld / %lld</td>",
		       (long long)json_integer_value(json_object_get(m, "n_a")),
		       (long long)json_integer_value(json_object_get(m, "n_b")));
		cell(h, m, "median_a", "%.5g", 1);
		cell(h, json_object_get(m, "a"), "cv", "%.1f%%", 100);
		cell(h, m, "median_b", "%.5g", 1);
		cell(h, json_object_get(m, "b"), "cv", "%.1f%%", 100);
		text_add(h, "<td>%s</td><td>%s &hellip; %s</td>", ch, clo, chi);
		cell(h, m, "p_adjusted", "%.3g", 1);
		cell(h, m, "p_welch", "%.3g", 1);
		text_add(h, "<td title=\"");
		text_esc(h, json_string_value(json_object_get(m, "why")));
		text_add(h, "\"><b>%s</b></td><td>%zu / %zu</td></tr>\n", v,
		       json_array_size(json_object_get(m, "outliers_a")),
		       json_array_size(json_object_get(m, "outliers_b")));
	}
	text_add(h, "</table>\n");
}

/* what was found, in words, before any number: comparison.json's summary */
static void summary(struct text *h, json_t *cmp)
{
	json_t *lines = json_incref(json_object_get(cmp, "summary")), *l;
	size_t i;

	if (!json_is_array(lines)) {	/* a comparison.json from before the summary */
		json_decref(lines);
		lines = summary_lines(cmp);
	}
	text_add(h, "<div class=\"summary\">\n");
	json_array_foreach(lines, i, l) {
		const char *s = json_string_value(l);

		if (!i) {
			text_add(h, "<p class=\"headline\"><b>");
			text_esc(h, s);
			text_add(h, "</b></p>\n<ul>\n");
		} else if (!strncmp(s, "rerun: ", 7)) {
			text_add(h, "<li>rerun: <code>");
			text_esc(h, s + 7);
			text_add(h, "</code></li>\n");
		} else {
			text_add(h, "<li>");
			text_esc(h, s);
			text_add(h, "</li>\n");
		}
	}
	text_add(h, "%s</div>\n", json_array_size(lines) ? "</ul>\n" : "");
	json_decref(lines);
}

/* "What else changed": the kernel counters that moved, largest first */
static void counters_section(struct text *h, json_t *ctr)
{
	json_t *changed = json_object_get(ctr, "changed"), *r;
	size_t i;

	text_add(h, "<h2 id=\"counters\">What else changed</h2>\n<p>Kernel counters read right "
		   "before and after the workload in every run (%lld tested); ",
		 (long long)json_integer_value(json_object_get(ctr, "tested")));
	text_esc(h, json_string_value(json_object_get(ctr, "rule")));
	text_add(h, ".</p>\n");
	if (!json_array_size(changed)) {
		text_add(h, "<p>None changed.</p>\n");
		return;
	}
	text_add(h, "<table class=\"counters\"><tr><th>counter</th><th>stock (median)</th>"
		   "<th>patched (median)</th><th>change</th><th>p adjusted</th></tr>\n");
	json_array_foreach(changed, i, r) {
		json_t *pct = json_object_get(r, "change_pct");

		text_add(h, "<tr><td style=\"text-align:left\"><code>");
		text_esc(h, json_string_value(json_object_get(r, "counter")));
		text_add(h, "</code></td><td>%.6g</td><td>%.6g</td>",
			 json_real_value(json_object_get(r, "stock")),
			 json_real_value(json_object_get(r, "patched")));
		if (json_is_real(pct))
			text_add(h, "<td>%+.1f %%</td>", json_real_value(pct));
		else
			text_add(h, "<td>from 0</td>");
		text_add(h, "<td>%.2g</td></tr>\n", json_real_value(json_object_get(r, "p_adj")));
	}
	text_add(h, "</table>\n");
}

int html_report(const char *dir, json_t *cmp)
{
	char *pdir = xasprintf("%s/plots", dir), *path = xasprintf("%s/report.html", dir);
	json_t *metrics = json_object_get(cmp, "metrics"), *order = json_object_get(cmp, "order");
	json_t *claim = json_object_get(cmp, "claim"), *m, *job = json_object_get(cmp, "job");
	const char *name, *no_plots = NULL;
	struct text h = { 0 };
	int ret;

	/* the page is written whatever becomes of its plots */
	if (strchr(dir, '\'')) {
		no_plots = "the report's directory has a quote, which gnuplot strings cannot hold";
		free(pdir);
		pdir = NULL;
	} else if (mkdir_p(pdir, 0755) < 0) {
		no_plots = "cannot make the plots directory";
		free(pdir);
		pdir = NULL;
	}
	text_add(&h, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kpair: ");
	text_esc(&h, json_string_value(json_object_get(job, "name")));
	text_add(&h, "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:1200px}"
		   "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
		   "text-align:right}tr.improved td:last-child{background:#cfc}"
		   "tr.regressed td:last-child{background:#fcc}tr.inconclusive td:last-child{background:#eee}"
		   "tr.improved-small td:last-child{background:#efe}"
		   "tr.regressed-small td:last-child{background:#fee}"
		   ".plot{display:inline-block;margin:4px}h2{margin-top:1.5em}"
		   ".plot-note{color:#a00}.summary{border:1px solid #ccc;background:#f8f8f8;"
		   "padding:4px 12px;margin:1em 0}.headline{font-size:1.15em}</style></head><body>\n");
	text_add(&h, "<h1>kpair %s: ", json_string_value(json_object_get(cmp, "kind")));
	text_esc(&h, json_string_value(json_object_get(job, "name")));
	text_add(&h, "</h1>\n<p>stock <code>");
	text_esc(&h, json_string_value(side_kernel(cmp, "stock")));
	text_add(&h, "</code> vs patched <code>");
	text_esc(&h, json_string_value(side_kernel(cmp, "patched")));
	text_add(&h, "</code>; accelerator <code>");
	text_esc(&h, json_string_value(json_object_get(cmp, "accel")));
	text_add(&h, "</code>; %zu runs in the order drawn from seed %lld; failed runs: %lld.</p>\n",
	       json_array_size(order), (long long)json_integer_value(json_object_get(cmp, "order_seed")),
	       (long long)json_integer_value(json_object_get(cmp, "failed_runs")));
	summary(&h, cmp);
	table(&h, metrics);
	if (claim) {
		text_add(&h, "<p><b>claim</b> (");
		text_esc(&h, json_string_value(json_object_get(claim, "source")));
		text_add(&h, "): <b>%s</b>: ", json_string_value(json_object_get(claim, "result")));
		text_esc(&h, json_string_value(json_object_get(claim, "why")));
		text_add(&h, "</p>\n");
	}
	if (json_object_get(cmp, "counters"))
		counters_section(&h, json_object_get(cmp, "counters"));
	if (json_object_get(cmp, "profile"))
		profile_html(&h, json_object_get(cmp, "profile"), dir);
	json_object_foreach(metrics, name, m) {
		if (!strcmp(json_string_value(json_object_get(m, "better")), "none"))
			continue;
		text_add(&h, "<h2 class=\"metric\">");
		text_esc(&h, name);
		text_add(&h, "</h2>\n");
		metric_plots(pdir, no_plots, name, m, order, &h);
	}
	text_add(&h, "</body></html>\n");
	ret = write_text(path, h.s);
	free(h.s);
	free(path);
	free(pdir);
	return ret;
}
