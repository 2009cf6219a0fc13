/*
 * tarball.h - the tar-extract workload's input: a ustar archive in the shape
 * of a source tree (directories, files of source-like sizes and text), made
 * deterministically from a seed with libarchive and cached under
 * images/tarballs/ keyed by seed and shape, with a manifest of what is in it.
 */
#ifndef KPAIR_TARBALL_H
#define KPAIR_TARBALL_H

#include <stdint.h>

struct tar_shape {
	uint64_t seed;
	uint64_t files;		/* regular files */
	uint64_t dirs;		/* directories, the top one included */
	uint64_t bytes;		/* file data, exactly */
};

struct tarball {
	char *path;		/* images/tarballs/<key>.tar (owned) */
	char *manifest;		/* images/tarballs/<key>.json (owned) */
	uint64_t files, dirs, bytes, archive_bytes;
	char sha256[65];
};

void tarball_init(struct tarball *t);
void tarball_release(struct tarball *t);

/* the cache key of @s, e.g. "tree-v2-s1-f2500-d250-b17825792" (caller frees) */
char *tarball_key(const struct tar_shape *s);
/* make (or find in the cache) the archive of shape @s */
int tarball_get(const struct tar_shape *s, struct tarball *out);
/* write the archive of shape @s to @path, filling the counts of @out */
int tarball_write(const struct tar_shape *s, const char *path, struct tarball *out);

#endif
