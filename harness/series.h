/*
 * series.h - quilt-style patch series files: one patch a line, relative to
 * the series file's directory, '#' comments, an optional "-p1" after a name.
 * Shared by nightly (a kernel under test built from a series) and bisect.
 */
#ifndef KPAIR_SERIES_H
#define KPAIR_SERIES_H

#include "kernels/build.h"

struct series {
	char *file;			/* the series file as given */
	char *patches[BUILD_MAX_PATCHES];	/* absolute paths, in order (owned) */
	char *names[BUILD_MAX_PATCHES];	/* as the series file spells them (owned) */
	int n;
};

void series_init(struct series *s);
void series_release(struct series *s);
/* read @path; every patch must exist; errors are "file:line: reason" */
int series_load(struct series *s, const char *path);

#endif
