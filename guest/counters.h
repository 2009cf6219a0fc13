/* counters.h - kernel counters around the workload (counters.c) */
#ifndef KPAIR_COUNTERS_H
#define KPAIR_COUNTERS_H

#include <stddef.h>

struct counters {
	char **names;		/* "vmstat.pgfault", "irq.LOC", "block.writes", ... */
	long long *v;
	size_t n, cap;
	double took_s;		/* what the snapshot cost */
};

/* every counter this kernel has, @dev's block statistics included (NULL: none) */
void counters_snapshot(struct counters *c, const char *dev);
void counters_release(struct counters *c);
/* the deltas that are not zero, as counters records, with the two snapshots' cost */
int counters_send(const struct counters *before, const struct counters *after);

#endif
