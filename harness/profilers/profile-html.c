/*
 * profile-html.c - report.html's "Where the instructions went": the profile diff's top
 * functions by delta, both directions, as bars and numbers, the call that made the
 * difference, and the differential flame graph inline (DIR/profile/flame.svg).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profilers/profiler.h"
#include "util.h"

/* the A/B's differential flame graph, inline, or a line saying why there is none */
static void flame_inline(struct text *h, json_t *prof, const char *dir)
{
	const char *rel = json_string_value(json_object_get(prof, "flame"));
	const char *why = json_string_value(json_object_get(prof, "flame_absent"));
	char *path = rel ? xasprintf("%s/%s", dir, rel) : NULL, *svg = NULL;

	text_add(h, "<h3 id=\"flame\">The calls the instructions went through</h3>\n");
	if (path && read_file(path, &svg, NULL) == 0) {
		text_add(h, "<p>Each frame is a function with what it called above it, as wide as "
			   "the larger side's instructions in it (callees included): red where the "
			   "patched side ran more, blue where it ran fewer; hover for the counts. "
			   "The stacks are <code>profile/stock/stacks.txt</code> and "
			   "<code>profile/patched/stacks.txt</code> (folded, as flamegraph.pl reads "
			   "them).</p>\n<div class=\"flame\">%s</div>\n", svg);
	} else {
		text_add(h, "<p class=\"plot-note\">no flame graph: ");
		text_esc(h, rel ? "its file cannot be read" : why ? why : "none was made");
		text_add(h, "</p>\n");
	}
	free(svg);
	free(path);
}

/*
 * "Where the instructions went": the profile diff's top functions by delta, both
 * directions, as bars (red: more instructions on the patched side) and numbers
 */
void profile_html(struct text *h, json_t *prof, const char *dir)
{
	json_t *list = json_object_get(prof, "functions"), *r, *tot = json_object_get(prof, "total");
	double max = 0;
	size_t i;

	text_add(h, "<h2 id=\"profile\">Where the instructions went</h2>\n");
	if (json_object_get(prof, "absent")) {
		text_add(h, "<p class=\"plot-note\">no profile: ");
		text_esc(h, json_string_value(json_object_get(prof, "absent")));
		text_add(h, "</p>\n");
		return;
	}
	text_add(h, "<p>One profiled run a side (not among the measured runs): instructions "
		   "executed per kernel function (self), counted by kpair's TCG plugin. Total: "
		   "stock %lld, patched %lld, delta %+lld (%+.2f %%); largest per-function change "
		   "%lld.</p>\n", (long long)json_integer_value(json_object_get(tot, "stock")),
		 (long long)json_integer_value(json_object_get(tot, "patched")),
		 (long long)json_integer_value(json_object_get(tot, "delta")),
		 json_number_value(json_object_get(tot, "delta_pct")),
		 (long long)json_integer_value(json_object_get(prof, "largest_abs_delta")));
	if (json_is_object(json_object_get(prof, "origin"))) {
		json_t *o = json_object_get(prof, "origin");

		text_add(h, "<p class=\"headline\"><b>Why:</b> <code>");
		text_esc(h, json_string_value(json_object_get(o, "function")));
		text_add(h, "</code> &rarr; <code>");
		text_esc(h, json_string_value(json_object_get(o, "callee")));
		text_add(h, "</code>, ");
		text_esc(h, json_string_value(json_object_get(o, "because")));
		text_add(h, " (%lld calls, stock %lld): %+lld instructions, %.0f %% of the "
			   "difference.</p>\n",
			 (long long)json_integer_value(json_object_get(o, "patched_calls")),
			 (long long)json_integer_value(json_object_get(o, "stock_calls")),
			 (long long)json_integer_value(json_object_get(o, "delta")),
			 100 * json_number_value(json_object_get(o, "share_of_delta")));
	}
	json_array_foreach(list, i, r) {
		double d = fabs((double)json_integer_value(json_object_get(r, "delta")));

		if (d > max)
			max = d;
	}
	text_add(h, "<table class=\"profile\"><tr><th>function</th><th>stock</th><th>patched</th>"
		   "<th>delta</th><th>share of the difference</th><th></th></tr>\n");
	json_array_foreach(list, i, r) {
		long long d = (long long)json_integer_value(json_object_get(r, "delta"));
		json_t *sh = json_object_get(r, "share_of_delta");

		if (i >= 20 || !d)
			break;
		text_add(h, "<tr><td style=\"text-align:left\"><code>");
		text_esc(h, json_string_value(json_object_get(r, "function")));
		text_add(h, "</code></td><td>%lld</td><td>%lld</td><td>%+lld</td>",
			 (long long)json_integer_value(json_object_get(r, "stock")),
			 (long long)json_integer_value(json_object_get(r, "patched")), d);
		if (json_is_real(sh))
			text_add(h, "<td>%.1f %%</td>", 100 * json_real_value(sh));
		else
			text_add(h, "<td></td>");
		text_add(h, "<td style=\"text-align:left;width:320px\"><div style=\"height:12px;"
			   "width:%.0fpx;background:%s\"></div></td></tr>\n",
			 max > 0 ? 300.0 * fabs((double)d) / max : 0, d > 0 ? "#d44" : "#4a4");
	}
	text_add(h, "</table>\n");
	flame_inline(h, prof, dir);
}

