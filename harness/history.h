/*
 * history.h - what a night leaves behind: summary.json and junit.xml in
 * results/nightly/<date>/, and the history of every night in
 * results/nightly/index.json with index.html (one gnuplot SVG trend plot per
 * metric across nights, regressed nights marked).
 */
#ifndef KPAIR_HISTORY_H
#define KPAIR_HISTORY_H

#include <jansson.h>

#define NIGHT_FORMAT "kpair-nightly/1"
#define INDEX_FORMAT "kpair-nightly-index/1"

/* @root/index.json, or an empty index when there is none (new reference; NULL: unreadable) */
json_t *history_load(const char *root);
/*
 * The entry @key of the latest night before @date that may be a baseline (its
 * "baseline_ok": a night that showed no change; in an index from before it, one that
 * passed), borrowed from @index, its night's date in *night; NULL when none.
 */
json_t *history_last_good(json_t *index, const char *date, const char *key, const char **night);
/* summary.json and junit.xml of @night (borrowed) in @dir */
int history_write_night(const char *dir, json_t *night);
/* @night (borrowed) into @index, replacing a night of the same date; index.json, index.html */
int history_update(const char *root, json_t *index, json_t *night);

/* @d is a real date "YYYY-MM-DD"; today's, local time (caller frees) */
int history_date_ok(const char *d);
char *history_today(void);

#endif
