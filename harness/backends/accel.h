/* accel.h - the accelerator a run gets (KVM probed once, else TCG) and QEMU's version (accel.c) */
#ifndef KPAIR_ACCEL_H
#define KPAIR_ACCEL_H

#include <stddef.h>

#include "config.h"

/* "kvm" or "tcg" for @target, probing KVM once (cached in images/accel.json) */
int accel_choose(const struct target *t, const char *kernel, const char *want,
		 char *accel, size_t len, char *why, size_t whylen);
/* QEMU's version line, e.g. "7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)" (caller frees) */
char *qemu_version(const char *qemu);

#endif
