/* html.h - report.html: one self-contained offline page with gnuplot SVG plots */
#ifndef KPAIR_HTML_H
#define KPAIR_HTML_H

#include <jansson.h>

#include "util.h"

/*
 * Write @dir/report.html from a comparison (comparison.json's content,
 * borrowed): the verdict table, and per metric the values in run order (drift
 * shows), the two distributions side by side and, for per-operation metrics,
 * latency CDFs. Plots are rendered by gnuplot into @dir/plots/ and inlined.
 */
int html_report(const char *dir, json_t *cmp);

/*
 * Run gnuplot on @script (written to @script_path) that sets its output to
 * @svg; *out gets the SVG wrapped in <div class="plot"> (caller frees). On
 * failure *why says why in one line (caller frees), for html_plot_note().
 */
int html_svg(const char *script_path, const char *script, const char *svg, char **out,
	     char **why);
/* the one-line note a page holds where plot @what could not be drawn */
void html_plot_note(struct text *h, const char *what, const char *why);

#endif
