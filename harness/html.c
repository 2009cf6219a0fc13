/* html.c - report.html with inline gnuplot SVGs; gnuplot runs from spawn with a script file */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "spawn.h"
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

static json_t *side_cv(json_t *m, const char *side)
{
	return json_object_get(json_object_get(m, side), "cv");
}

static json_t *side_kernel(json_t *cmp, const char *side)
{
	return json_object_get(json_object_get(json_object_get(cmp, "sides"), side), "kernel_id");
}

static int write_text(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/* run-order data: "index value" for each ok run of @side that has the metric */
static void order_data(struct text *d, json_t *order, const char *side, json_t *values)
{
	size_t i, k = 0;
	json_t *e;

	json_array_foreach(order, i, e) {
		const char *s = json_string_value(json_object_get(e, "side"));
		const char *st = json_string_value(json_object_get(e, "status"));

		if (!s || strcmp(s, side) || !st || strcmp(st, "ok"))
			continue;
		if (k < json_array_size(values))
			text_add(d, "%lld %.9g\n", (long long)json_integer_value(json_object_get(e, "index")),
			       json_number_value(json_array_get(values, k)));
		k++;
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* CDF data of every raw value of a side */
static void cdf_data(struct text *d, json_t *raw)
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
	for (i = 0; i < n; i++)
		text_add(d, "%.9g %.6f\n", all[i], (double)(i + 1) / (double)n);
	free(all);
}

/* run gnuplot on @script; the SVG it wrote, from "<svg" on, into @html */
static int plot(const char *script_path, const char *script, const char *svg, struct text *html)
{
	const char *argv[] = { "gnuplot", script_path, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	char *text = NULL, *start;
	int ret = -1;

	if (write_text(script_path, script) < 0)
		return -1;
	if (spawn_run(argv, 60000, &r) < 0 || r.exit_code) {
		error("gnuplot '%s' failed: %s", script_path, r.err);
		goto out;
	}
	if (read_file(svg, &text, NULL) < 0)
		goto out;
	start = strstr(text, "<svg");
	if (!start) {
		error("'%s' is not an SVG", svg);
		goto out;
	}
	text_add(html, "<div class=\"plot\">%s</div>\n", start);
	ret = 0;
out:
	free(text);
	spawn_result_release(&r);
	return ret;
}

int html_svg(const char *script_path, const char *script, const char *svg, char **out)
{
	struct text b = { 0 };

	*out = NULL;
	if (plot(script_path, script, svg, &b) < 0) {
		free(b.s);
		return -1;
	}
	*out = b.s;
	return 0;
}

static const char *plot_head =
	"set terminal svg size 560,320 font 'sans,10' background '#ffffff'\n"
	"set termoption noenhanced\nset grid\nset key outside top center horizontal\n";

static int metric_plots(const char *pdir, const char *name, json_t *m, json_t *order,
			struct text *html)
{
	char safe[96], *pa, *pb, *ps, *svg;
	const char *unit = json_string_value(json_object_get(m, "unit"));
	struct text da = { 0 }, db = { 0 }, sc = { 0 };
	int ret = 0, kind;

	safe_name(name, safe, sizeof(safe));
	for (kind = 0; kind < 3 && !ret; kind++) {
		static const char *const kinds[] = { "order", "dist", "cdf" };

		if (kind == 2 && !json_is_true(json_object_get(m, "per_op")))
			break;
		da.len = db.len = sc.len = 0;
		pa = xasprintf("%s/%s-%s-stock.dat", pdir, safe, kinds[kind]);
		pb = xasprintf("%s/%s-%s-patched.dat", pdir, safe, kinds[kind]);
		ps = xasprintf("%s/%s-%s.gp", pdir, safe, kinds[kind]);
		svg = xasprintf("%s/%s-%s.svg", pdir, safe, kinds[kind]);
		text_add(&da, "%s", "");
		text_add(&db, "%s", "");
		if (kind == 0) {
			order_data(&da, order, "stock", json_object_get(m, "values_a"));
			order_data(&db, order, "patched", json_object_get(m, "values_b"));
		} else if (kind == 1) {
			json_t *v;
			size_t i;

			json_array_foreach(json_object_get(m, "values_a"), i, v)
				text_add(&da, "%.9g\n", json_number_value(v));
			json_array_foreach(json_object_get(m, "values_b"), i, v)
				text_add(&db, "%.9g\n", json_number_value(v));
		} else {
			cdf_data(&da, json_object_get(m, "raw_a"));
			cdf_data(&db, json_object_get(m, "raw_b"));
		}
		text_add(&sc, "%sset output '%s'\n", plot_head, svg);
		if (kind == 0)
			text_add(&sc, "set title '%s: per run, in run order'\nset xlabel 'run'\n"
				    "set ylabel '%s'\nplot '%s' using 1:2 with linespoints pt 7 title 'stock', "
				    "'%s' using 1:2 with linespoints pt 5 title 'patched'\n",
				    safe, unit, pa, pb);
		else if (kind == 1)
			text_add(&sc, "set title '%s: distribution'\nset xtics ('stock' 1, 'patched' 2)\n"
				    "set xrange [0.3:2.7]\nset ylabel '%s'\nset style fill solid 0.25\n"
				    "set style boxplot nooutliers\nset boxwidth 0.4\n"
				    "plot '%s' using (1):1 with boxplot notitle lc 1, '%s' using (2):1 with boxplot notitle lc 2, "
				    "'%s' using (1+0.15*(rand(0)-0.5)):1 with points pt 7 lc 1 notitle, "
				    "'%s' using (2+0.15*(rand(0)-0.5)):1 with points pt 5 lc 2 notitle\n",
				    safe, unit, pa, pb, pa, pb);
		else
			text_add(&sc, "set title '%s: CDF of every operation'\nset xlabel '%s'\nset logscale x\n"
				    "set ylabel 'fraction'\nset yrange [0:1]\n"
				    "plot '%s' using 1:2 with steps title 'stock', '%s' using 1:2 with steps title 'patched'\n",
				    safe, unit, pa, pb);
		if (write_text(pa, da.s) < 0 || write_text(pb, db.s) < 0 || plot(ps, sc.s, svg, html) < 0)
			ret = -1;
		free(pa);
		free(pb);
		free(ps);
		free(svg);
	}
	free(da.s);
	free(db.s);
	free(sc.s);
	return ret;
}

static void table(struct text *h, json_t *metrics)
{
	const char *name;
	json_t *m;

	text_add(h, "<table><tr><th>metric</th><th>unit</th><th>n</th><th>stock median</th>"
		  "<th>CV</th><th>patched median</th><th>CV</th><th>change</th><th>95%% CI</th>"
		  "<th>p (MW, Holm)</th><th>p (Welch)</th><th>verdict</th>"
		  "<th title=\"runs whose modified z-score (MAD) exceeds 3.5: flagged, kept\">outliers</th></tr>\n");
	json_object_foreach(metrics, name, m) {
		const char *v = json_string_value(json_object_get(m, "verdict"));
		double r = json_number_value(json_object_get(m, "ratio"));

		if (!strcmp(json_string_value(json_object_get(m, "better")), "none"))
			continue;
		text_add(h, "<tr class=\"%s\"><td>", v);
		text_esc(h, name);
		if (!strcmp(json_string_value(json_object_get(m, "endpoint")) ?: "", "primary"))
			text_add(h, " <i title=\"the claim's metric: its p is not corrected; Holm "
				  "covers the others\">(primary)</i>");
		text_add(h, "</td><td>");
		text_esc(h, json_string_value(json_object_get(m, "unit")));
		text_add(h, "</td><td>%lld / %lld</td><td>%.5g</td><td>%.1f%%</td><td>%.5g</td>"
			  "<td>%.1f%%</td><td>%+.1f%%</td><td>%+.1f%% &hellip; %+.1f%%</td>"
			  "<td>%.3g</td><td>%.3g</td><td title=\"",
		       (long long)json_integer_value(json_object_get(m, "n_a")),
		       (long long)json_integer_value(json_object_get(m, "n_b")),
		       json_number_value(json_object_get(m, "median_a")),
		       json_number_value(side_cv(m, "a")) * 100,
		       json_number_value(json_object_get(m, "median_b")),
		       json_number_value(side_cv(m, "b")) * 100, (r - 1) * 100,
		       (json_number_value(json_object_get(m, "ratio_ci_low")) - 1) * 100,
		       (json_number_value(json_object_get(m, "ratio_ci_high")) - 1) * 100,
		       json_number_value(json_object_get(m, "p_adjusted")),
		       json_number_value(json_object_get(m, "p_welch")));
		text_esc(h, json_string_value(json_object_get(m, "why")));
		text_add(h, "\"><b>%s</b></td><td>%zu / %zu</td></tr>\n", v,
		       json_array_size(json_object_get(m, "outliers_a")),
		       json_array_size(json_object_get(m, "outliers_b")));
	}
	text_add(h, "</table>\n");
}

int html_report(const char *dir, json_t *cmp)
{
	char *pdir = xasprintf("%s/plots", dir), *path = xasprintf("%s/report.html", dir);
	json_t *metrics = json_object_get(cmp, "metrics"), *order = json_object_get(cmp, "order");
	json_t *claim = json_object_get(cmp, "claim"), *m, *job = json_object_get(cmp, "job");
	struct text h = { 0 };
	const char *name;
	int ret = -1;

	if (strchr(dir, '\'')) {
		error("report: directory '%s' has a quote, which gnuplot strings cannot hold", dir);
		goto out;
	}
	if (mkdir_p(pdir, 0755) < 0)
		goto out;
	text_add(&h, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kpair: ");
	text_esc(&h, json_string_value(json_object_get(job, "name")));
	text_add(&h, "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:1200px}"
		   "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
		   "text-align:right}tr.improved td:last-child{background:#cfc}"
		   "tr.regressed td:last-child{background:#fcc}tr.inconclusive td:last-child{background:#eee}"
		   ".plot{display:inline-block;margin:4px}h2{margin-top:1.5em}</style></head><body>\n");
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
	table(&h, metrics);
	if (claim) {
		text_add(&h, "<p><b>claim</b> (");
		text_esc(&h, json_string_value(json_object_get(claim, "source")));
		text_add(&h, "): <b>%s</b>: ", json_string_value(json_object_get(claim, "result")));
		text_esc(&h, json_string_value(json_object_get(claim, "why")));
		text_add(&h, "</p>\n");
	}
	json_object_foreach(metrics, name, m) {
		if (!strcmp(json_string_value(json_object_get(m, "better")), "none"))
			continue;
		text_add(&h, "<h2 class=\"metric\">");
		text_esc(&h, name);
		text_add(&h, "</h2>\n");
		if (metric_plots(pdir, name, m, order, &h) < 0)
			goto out;
	}
	text_add(&h, "</body></html>\n");
	ret = write_text(path, h.s);
out:
	free(h.s);
	free(path);
	free(pdir);
	return ret;
}
