/* html.h - report.html: one self-contained offline page with gnuplot SVG plots */
#ifndef KPAIR_HTML_H
#define KPAIR_HTML_H

#include <jansson.h>

/*
 * Write @dir/report.html from a comparison (comparison.json's content,
 * borrowed): the verdict table, and per metric the values in run order (drift
 * shows), the two distributions side by side and, for per-operation metrics,
 * latency CDFs. Plots are rendered by gnuplot into @dir/plots/ and inlined.
 */
int html_report(const char *dir, json_t *cmp);

/*
 * Run gnuplot on @script (written to @script_path) that sets its output to
 * @svg; *out gets the SVG wrapped in <div class="plot"> (caller frees).
 */
int html_svg(const char *script_path, const char *script, const char *svg, char **out);

#endif
