/* source.h - kernel source trees for harness/kernels/build.c */
#ifndef KPAIR_SOURCE_H
#define KPAIR_SOURCE_H

/*
 * Download the Debian package @pkg (linux-source-X.Y, never installed) into
 * @work and unpack its tarball into @src, once: a tree already unpacked is
 * reused. *pkgver gets the package version (caller frees).
 */
int source_unpack_package(const char *pkg, const char *work, const char *src, char **pkgver);
/* "6.1.192" from the tree's Makefile (caller frees), NULL if it is not a kernel tree */
char *source_version(const char *src);

#endif
