/*
 * profile-diff.c - where the instructions went: two profile.json files (one profiled run
 * a side) compared function by function. The deltas of the functions, the user-space
 * bucket and the rest add up to the total delta exactly (integer counts).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profilers/profiler.h"
#include "util.h"

#define DIFF_TOP 40	/* functions listed in the diff; the others summed as "rest" */

struct fdelta {
	const char *name;
	long long stock, patched, delta;
};

static json_t *load_profile(const char *dir)
{
	char *path = xasprintf("%s/profile.json", dir);
	json_error_t e;
	json_t *j = path_exists(path) ? json_load_file(path, 0, &e) : NULL;

	if (!j)
		error("profile: no profile in '%s'", path);
	else if (!json_is_object(json_object_get(j, "functions")) ||
		 !json_is_integer(json_object_get(j, "total")) ||
		 !json_is_integer(json_object_get(j, "user"))) {
		error("'%s': functions, total, user: missing or not numbers", path);
		json_decref(j);
		j = NULL;
	}
	free(path);
	return j;
}

static long long geti(json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

static int by_abs_delta(const void *a, const void *b)
{
	const struct fdelta *x = a, *y = b;
	long long ax = llabs(x->delta), ay = llabs(y->delta);

	if (ax != ay)
		return ax < ay ? 1 : -1;
	return strcmp(x->name, y->name);
}

static json_t *row(const char *name, long long s, long long p, long long total_delta,
		   long long stock_total)
{
	long long d = p - s;

	return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o}", "function", name, "stock",
			 (json_int_t)s, "patched", (json_int_t)p, "delta", (json_int_t)d,
			 "share_of_delta", total_delta ? json_real((double)d / total_delta) : json_null(),
			 "delta_pct_of_stock_total",
			 stock_total ? json_real(100.0 * d / stock_total) : json_null());
}

/*
 * Why: the call that made the difference. An edge caller -> callee whose inclusive
 * instructions moved by at least half the total delta, in its direction, is the caller's
 * doing when the call is new (or gone) or when the callee costs the same per call and is
 * called more (or less); a callee that costs more per call is the callee's. A new or gone
 * call first, then the largest. NULL when no edge explains it (the self deltas do), or
 * when the total moved by less than ORIGIN_MIN_PCT of the stock side's: one run a side
 * is all there is, and in an A/A two single runs differ by a journal commit or a
 * writeback that falls in one and not the other (seen: 0.018 %, and past 0.1 %).
 */
#define ORIGIN_MIN_PCT 1.0

static json_t *origin(json_t *ca, json_t *cb, long long td, long long stock_total)
{
	json_t *best = NULL, *e, *o;
	const char *key, *bkey = NULL;
	int best_new = 0;
	long long best_d = 0;
	json_t *all;

	if (!stock_total || 100.0 * llabs(td) / stock_total < ORIGIN_MIN_PCT)
		return NULL;
	all = json_object();
	json_object_foreach(ca, key, e)
		json_object_set(all, key, e);
	json_object_foreach(cb, key, e)
		json_object_set(all, key, e);
	json_object_foreach(all, key, e) {
		json_t *a = json_object_get(ca, key), *b = json_object_get(cb, key);
		long long na = a ? geti(a, "calls") : 0, nb = b ? geti(b, "calls") : 0;
		long long ia = a ? geti(a, "insns") : 0, ib = b ? geti(b, "insns") : 0;
		long long d = ib - ia;
		int is_new = td > 0 ? !na && nb : na && !nb;
		int same_cost = na && nb &&
			fabs((double)ib / nb - (double)ia / na) <= 0.1 * ((double)ia / na);

		if (!td || (td > 0 ? d : -d) < (td > 0 ? td : -td) / 2 || strstr(key, "no symbol]"))
			continue;
		if (!is_new && !(same_cost && (td > 0 ? nb > na : nb < na)))
			continue;
		if (best && (best_new > is_new || (best_new == is_new && llabs(d) <= llabs(best_d))))
			continue;
		best = e;
		bkey = key;
		best_new = is_new;
		best_d = d;
	}
	if (!best) {
		json_decref(all);
		return NULL;
	}
	{
		const char *arrow = strstr(bkey, " -> ");
		json_t *a = json_object_get(ca, bkey), *b = json_object_get(cb, bkey);
		char *caller = xasprintf("%.*s", (int)(arrow - bkey), bkey);

		o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:f}", "function", caller,
			      "callee", arrow + 4,
			      "because", best_new ? (td > 0 ? "a new call" : "a call gone") :
			      (td > 0 ? "more calls" : "fewer calls"),
			      "stock_calls", (json_int_t)(a ? geti(a, "calls") : 0),
			      "patched_calls", (json_int_t)(b ? geti(b, "calls") : 0),
			      "stock_insns", (json_int_t)(a ? geti(a, "insns") : 0),
			      "patched_insns", (json_int_t)(b ? geti(b, "insns") : 0),
			      "delta", (json_int_t)best_d, "share_of_delta", (double)best_d / td);
		free(caller);
	}
	json_decref(all);
	return o;
}

/* the edges with the largest inclusive deltas */
static json_t *call_deltas(json_t *ca, json_t *cb, int top)
{
	json_t *all = json_object(), *e, *list = json_array();
	struct fdelta *d;
	const char *key;
	size_t n = 0, i;

	json_object_foreach(ca, key, e)
		json_object_set(all, key, e);
	json_object_foreach(cb, key, e)
		json_object_set(all, key, e);
	d = xcalloc(json_object_size(all) + 1, sizeof(*d));
	json_object_foreach(all, key, e) {
		json_t *a = json_object_get(ca, key), *b = json_object_get(cb, key);

		d[n].name = key;
		d[n].stock = a ? geti(a, "insns") : 0;
		d[n].patched = b ? geti(b, "insns") : 0;
		d[n].delta = d[n].patched - d[n].stock;
		n++;
	}
	qsort(d, n, sizeof(*d), by_abs_delta);
	for (i = 0; i < n && (int)i < top; i++) {
		json_t *a = json_object_get(ca, d[i].name), *b = json_object_get(cb, d[i].name);

		json_array_append_new(list, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "call",
			d[i].name, "stock_calls", (json_int_t)(a ? geti(a, "calls") : 0),
			"patched_calls", (json_int_t)(b ? geti(b, "calls") : 0),
			"stock_insns", (json_int_t)d[i].stock, "patched_insns", (json_int_t)d[i].patched,
			"delta", (json_int_t)d[i].delta));
	}
	free(d);
	json_decref(all);
	return list;
}

json_t *profile_diff(const char *stock_dir, const char *patched_dir)
{
	json_t *a = load_profile(stock_dir), *b = a ? load_profile(patched_dir) : NULL;
	json_t *fa, *fb, *v, *out = NULL, *list;
	long long ta, tb, td, rest_s = 0, rest_p = 0, max_abs = 0;
	struct fdelta *d = NULL;
	size_t n = 0, cap, i;
	const char *k;

	if (!b)
		goto out;
	fa = json_object_get(a, "functions");
	fb = json_object_get(b, "functions");
	cap = json_object_size(fa) + json_object_size(fb) + 1;
	d = xcalloc(cap, sizeof(*d));
	json_object_foreach(fa, k, v) {
		d[n].name = k;
		d[n].stock = (long long)json_integer_value(v);
		d[n].patched = (long long)json_integer_value(json_object_get(fb, k));
		d[n].delta = d[n].patched - d[n].stock;
		n++;
	}
	json_object_foreach(fb, k, v) {
		if (json_object_get(fa, k))
			continue;
		d[n].name = k;
		d[n].patched = (long long)json_integer_value(v);
		d[n].delta = d[n].patched;
		n++;
	}
	qsort(d, n, sizeof(*d), by_abs_delta);
	ta = geti(a, "total");
	tb = geti(b, "total");
	td = tb - ta;
	list = json_array();
	for (i = 0; i < n; i++) {
		if (i < DIFF_TOP) {
			json_array_append_new(list, row(d[i].name, d[i].stock, d[i].patched, td, ta));
		} else {
			rest_s += d[i].stock;
			rest_p += d[i].patched;
		}
		if (llabs(d[i].delta) > max_abs)
			max_abs = llabs(d[i].delta);
	}
	out = json_pack("{s:s, s:s, s:i, s:{s:I, s:I, s:I, s:o}, s:o, s:o, s:o, s:I, s:o}",
			"profiler", "insns", "unit", "instructions", "runs_per_side", 1,
			"total", "stock", (json_int_t)ta, "patched", (json_int_t)tb,
			"delta", (json_int_t)td,
			"delta_pct", ta ? json_real(100.0 * td / ta) : json_null(),
			"kernel", row("[kernel]", geti(a, "kernel"), geti(b, "kernel"), td, ta),
			"user", row("[user space]", geti(a, "user"), geti(b, "user"), td, ta),
			"rest", row("[other functions]", rest_s, rest_p, td, ta),
			"largest_abs_delta", (json_int_t)max_abs,
			"functions", list);
	if (out) {
		json_t *ca = json_object_get(a, "calls"), *cb = json_object_get(b, "calls");
		json_t *o = ca && cb ? origin(ca, cb, td, ta) : NULL;

		json_object_set_new(out, "origin", o ? o : json_null());
		json_object_set_new(out, "calls", ca && cb ? call_deltas(ca, cb, 20) : json_array());
	}
out:
	free(d);
	json_decref(a);
	json_decref(b);
	return out;
}

char *profile_diff_sentence(json_t *diff, int n)
{
	json_t *tot = json_object_get(diff, "total"), *list = json_object_get(diff, "functions");
	double td = (double)json_integer_value(json_object_get(tot, "delta"));
	double pct = json_number_value(json_object_get(tot, "delta_pct"));
	char h[32], *s;
	size_t i;

	json_t *o = json_object_get(diff, "origin");

	fmt_count(h, sizeof(h), td);
	s = xasprintf("where the instructions went (one profiled run a side): %s%s instructions "
		      "(%+.2f %%)", td > 0 ? "+" : "", h, pct);
	if (json_is_object(o)) {	/* the call that made the difference, first */
		char *t;

		fmt_count(h, sizeof(h), (double)json_integer_value(json_object_get(o, "delta")));
		t = xasprintf("%s; why: %s -> %s, %s (%lld calls, stock %lld): %s%s "
			      "instructions (%.0f %% of the difference); self", s,
			      jget_str(o, "function"), jget_str(o, "callee"), jget_str(o, "because"),
			      (long long)json_integer_value(json_object_get(o, "patched_calls")),
			      (long long)json_integer_value(json_object_get(o, "stock_calls")),
			      json_integer_value(json_object_get(o, "delta")) > 0 ? "+" : "", h,
			      100 * json_number_value(json_object_get(o, "share_of_delta")));
		free(s);
		s = t;
	}
	for (i = 0; i < json_array_size(list) && (int)i < n; i++) {
		json_t *r = json_array_get(list, i), *sh = json_object_get(r, "share_of_delta");
		double d = (double)json_integer_value(json_object_get(r, "delta"));
		char *t;

		if (!d)
			break;
		fmt_count(h, sizeof(h), d);
		if (json_is_real(sh) && fabs(td) > 0)
			t = xasprintf("%s%s %s %s%s (%.0f %% of the difference)", s, i ? "," : ":",
				      json_string_value(json_object_get(r, "function")),
				      d > 0 ? "+" : "", h, 100 * json_real_value(sh));
		else
			t = xasprintf("%s%s %s %s%s", s, i ? "," : ":",
				      json_string_value(json_object_get(r, "function")),
				      d > 0 ? "+" : "", h);
		free(s);
		s = t;
	}
	return s;
}

void profile_print_top(const char *dir, const char *absent, int n)
{
	json_t *p = absent ? NULL : load_profile(dir), *f, *v;
	struct fdelta *d;
	size_t i = 0, cnt;
	const char *k;
	double total;
	char h[32];

	if (!p) {
		printf("profile: none: %s\n", absent ? absent : error_last());
		return;
	}
	f = json_object_get(p, "functions");
	cnt = json_object_size(f);
	d = xcalloc(cnt + 1, sizeof(*d));
	json_object_foreach(f, k, v) {
		d[i].name = k;
		d[i].delta = (long long)json_integer_value(v);
		i++;
	}
	qsort(d, cnt, sizeof(*d), by_abs_delta);
	total = (double)geti(p, "total");
	fmt_count(h, sizeof(h), total);
	printf("profile: %s instructions, %.1f %% in the kernel (%lld functions ran); the top %d "
	       "(self, %s/profile.json):\n", h, total ? 100.0 * geti(p, "kernel") / total : 0.0,
	       (long long)cnt, n, dir);
	for (i = 0; i < cnt && (int)i < n; i++) {
		fmt_count(h, sizeof(h), (double)d[i].delta);
		printf("  %10s  %5.1f %%  %s\n", h, total ? 100.0 * d[i].delta / total : 0.0,
		       d[i].name);
	}
	if (json_string_value(json_object_get(p, "flame")))
		printf("  call stacks: %s/%s (folded), flame graph %s/%s\n", dir,
		       json_string_value(json_object_get(p, "stacks")), dir,
		       json_string_value(json_object_get(p, "flame")));
	free(d);
	json_decref(p);
}
