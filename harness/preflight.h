/*
 * preflight.h - checks before anything is made for a run: the kernel image,
 * the guest agent and the module files, and the lock on a run directory.
 * Each returns 0, or -1 with a one-line reason in @why.
 */
#ifndef KPAIR_PREFLIGHT_H
#define KPAIR_PREFLIGHT_H

#include <stddef.h>

#include "image.h"
#include "kernels/kernel.h"

/* 1 when @id_or_dir has a kernel.json (broken or not), else 0 */
int kernel_in_store(const char *id_or_dir);
/* image present, non-empty, a bzImage/Image/ELF of k->arch, and kernel.json's sha256 */
int kernel_image_check(const struct kernel *k, char *why, size_t len);
/* @path is an ELF executable for Debian architecture @arch */
int agent_check(const char *path, const char *arch, char *why, size_t len);
/* every module of @m under @moddir is readable and an ELF or xz/zstd/gzip file */
int module_files_check(const char *moddir, const struct modlist *m, char *why, size_t len);
/*
 * Lock directory @dir for this process (flock, never waits): the fd to keep
 * open, or -1 with an error printed when another kpair holds it.
 */
int dir_lock(const char *dir);

#endif
