/*
 * counters-cmp.c - what else changed: the kernel counters each run's guest read right before
 * and right after its workload (guest/counters.c; result.json "counters": the deltas that
 * were not zero) compared side against side as a family of their own. Each counter gets
 * the exact rank test (Mann-Whitney) alone, not the metrics' min(Mann-Whitney, Welch):
 * counters are whole numbers, often the same in most runs with a jump in some (a journal
 * commit, a writeback that falls inside one run and not another), and three runs a side
 * with no spread within a side look certain to Welch's normal model though a random split
 * makes them one time in ten. Benjamini-Hochberg across all the counters holds the false
 * discovery rate at 5 %, so hundreds of counters at 5 runs a side can still show the ones
 * that moved, and the primary metrics' verdicts and their family do not change. Shown:
 * p_adj < 0.05, an interval that excludes no change, a change of at least 10 % of the
 * larger median, and sides apart by at least their own spread. The rank test cannot reach
 * 0.05 below 4 runs a side: fewer runs call no counter changed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counters-cmp.h"
#include "stats.h"
#include "util.h"
#include "verdict.h"

#define COUNTERS_FDR 0.05
#define COUNTERS_MIN_CHANGE 0.10

static double *values(json_t *runs, const char *name, size_t *n)
{
	double *v = xcalloc(json_array_size(runs) + 1, sizeof(double));
	json_t *r;
	size_t i;

	json_array_foreach(runs, i, r) {
		json_t *x = json_object_get(r, name);

		v[i] = x ? (double)json_integer_value(x) : 0;	/* not sent: it did not move */
	}
	*n = json_array_size(runs);
	return v;
}

struct crow {
	const char *name;
	struct comparison c;
	double size;		/* |median b - median a| / the larger |median| */
	int apart;		/* the sides' ranges apart by at least the wider range */
};

static void range(const double *v, size_t n, double *lo, double *hi)
{
	size_t i;

	*lo = *hi = n ? v[0] : 0;
	for (i = 1; i < n; i++) {
		*lo = fmin(*lo, v[i]);
		*hi = fmax(*hi, v[i]);
	}
}

static int by_size(const void *x, const void *y)
{
	const struct crow *a = x, *b = y;

	if (a->size != b->size)
		return a->size < b->size ? 1 : -1;
	return strcmp(a->name, b->name);
}

json_t *counters_compare(json_t *runs_a, json_t *runs_b)
{
	json_t *names = json_object(), *r, *v, *changed = json_array(), *out;
	struct crow *rows;
	double *p, *adj;
	const char *k;
	size_t i, n = 0, shown = 0;

	json_array_foreach(runs_a, i, r)
		json_object_foreach(r, k, v)
			json_object_set_new(names, k, json_true());
	json_array_foreach(runs_b, i, r)
		json_object_foreach(r, k, v)
			json_object_set_new(names, k, json_true());
	rows = xcalloc(json_object_size(names) + 1, sizeof(*rows));
	p = xcalloc(json_object_size(names) + 1, sizeof(double));
	adj = xcalloc(json_object_size(names) + 1, sizeof(double));
	json_object_foreach(names, k, v) {
		size_t na, nb;
		double *a = values(runs_a, k, &na), *b = values(runs_b, k, &nb);
		double ma, mb, big;

		rows[n].name = k;
		compare_samples(a, na, b, nb, &rows[n].c);
		ma = rows[n].c.a.median;
		mb = rows[n].c.b.median;
		big = fmax(fabs(ma), fabs(mb));
		rows[n].size = big >= 1 ? fabs(mb - ma) / big : 0;
		{
			double alo, ahi, blo, bhi, spread;

			range(a, na, &alo, &ahi);
			range(b, nb, &blo, &bhi);
			spread = fmax(ahi - alo, bhi - blo);
			rows[n].apart = blo - ahi >= spread || alo - bhi >= spread;
		}
		rows[n].c.p = isnan(rows[n].c.p_mw) ? 1 : rows[n].c.p_mw;
		p[n] = rows[n].c.p;
		free(a);
		free(b);
		n++;
	}
	bh_adjust(p, n, adj);
	for (i = 0; i < n; i++)
		rows[i].c.p_adj = adj[i];
	qsort(rows, n, sizeof(*rows), by_size);
	for (i = 0; i < n; i++) {
		struct comparison *c = &rows[i].c;
		int ratio = c->scale == SCALE_RATIO;
		double lo = ratio ? c->ratio_lo : c->diff_lo, hi = ratio ? c->ratio_hi : c->diff_hi;
		int excludes = ratio ? (lo > 1 || hi < 1) : (lo > 0 || hi < 0);

		if (!(c->p_adj < COUNTERS_FDR) || !excludes || rows[i].size < COUNTERS_MIN_CHANGE ||
		    !rows[i].apart || json_array_size(runs_a) < VERDICT_MIN_RUNS ||
		    json_array_size(runs_b) < VERDICT_MIN_RUNS)
			continue;
		shown++;
		json_array_append_new(changed, json_pack("{s:s, s:f, s:f, s:o, s:s, s:o, s:o, s:f, s:f}",
			"counter", rows[i].name, "stock", c->a.median, "patched", c->b.median,
			"change_pct", c->a.median ? jreal(100 * (c->b.median - c->a.median) /
							   fabs(c->a.median)) : json_null(),
			"scale", scale_names[c->scale], "ci_low", jreal(lo), "ci_high", jreal(hi),
			"p", c->p, "p_adj", c->p_adj));
	}
	out = json_pack("{s:s, s:I, s:I, s:I, s:o}", "rule",
			"each counter: the exact rank test (Mann-Whitney); Benjamini-Hochberg across "
			"the counters (false discovery rate 5 %); shown: p_adj < 0.05, an interval "
			"excluding no change, a change of at least 10 % of the larger median, sides "
			"apart by at least their spread; from 4 runs a side (the rank test's floor)",
			"tested", (json_int_t)n, "runs_stock", (json_int_t)json_array_size(runs_a),
			"runs_patched", (json_int_t)json_array_size(runs_b), "changed", changed);
	(void)shown;
	free(adj);
	free(p);
	free(rows);
	json_decref(names);
	return out;
}

char *counters_sentence(json_t *ctr, int top)
{
	json_t *changed = json_object_get(ctr, "changed"), *r;
	size_t n = json_array_size(changed), i;
	char *s;

	if (!n)
		return xasprintf("what else changed: none of %lld kernel counters (Benjamini-Hochberg, "
				 "false discovery rate 5 %%)",
				 (long long)json_integer_value(json_object_get(ctr, "tested")));
	s = xasprintf("what else changed (%zu of %lld kernel counters, Benjamini-Hochberg 5 %%):",
		      n, (long long)json_integer_value(json_object_get(ctr, "tested")));
	json_array_foreach(changed, i, r) {
		char a[32], b[32], *t;
		json_t *pct = json_object_get(r, "change_pct");

		if ((int)i == top) {
			t = xasprintf("%s, %zu more in comparison.json", s, n - i);
			free(s);
			return t;
		}
		fmt_count(a, sizeof(a), json_real_value(json_object_get(r, "stock")));
		fmt_count(b, sizeof(b), json_real_value(json_object_get(r, "patched")));
		if (json_is_real(pct))
			t = xasprintf("%s%s %s %+.0f %% (%s -> %s)", s, i ? "," : "",
				      jget_str(r, "counter"), json_real_value(pct), a, b);
		else
			t = xasprintf("%s%s %s %s -> %s", s, i ? "," : "", jget_str(r, "counter"), a, b);
		free(s);
		s = t;
	}
	return s;
}
