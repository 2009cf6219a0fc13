/*
 * qemu-args.h - the machine a run's QEMU gets, written once: the QEMU
 * backend's argv (qemu.c), the LAVA backend's job (lava-run.c: the qemu device
 * type's extra_options) and the LAVA export's device (exports/export-lava.c)
 * all take their options from here, so that a run boots the same machine
 * whichever way it goes. Each option goes to @add as its words: the option and,
 * when it has one, its value (NULL otherwise).
 */
#ifndef KPAIR_QEMU_ARGS_H
#define KPAIR_QEMU_ARGS_H

#include <stdint.h>

#include "config.h"

typedef void (*qemu_add_fn)(void *ctx, const char *opt, const char *val);

struct qemu_machine {
	const struct target *target;
	const char *accel;		/* "kvm" or "tcg" */
	const char *icount;		/* -icount value, or NULL */
	uint64_t memory;		/* bytes; 0: not given here (LAVA's context has it) */
	uint64_t cpus;
	const char *display;		/* "-nographic", "-display none", or NULL */
};

/* -M, -accel, -bios, -cpu, -icount, -m, -smp and the defaults switched off */
void qemu_args_machine(const struct qemu_machine *m, qemu_add_fn add, void *ctx);
/*
 * the virtio-serial controller and the results port on chardev @chardev (a
 * socket for kpair's own QEMU, a file on /dev/null for LAVA's: the agent needs
 * the port open, and gets its records back on the console there)
 */
void qemu_args_results_port(const struct target *t, const char *chardev, qemu_add_fn add,
			    void *ctx);
/* the host directory @path read-only over virtio-9p, tag "hostroot" */
void qemu_args_host_root(const struct target *t, const char *path, qemu_add_fn add, void *ctx);
/* the virtio-9p device model of @t's bus (PCI or MMIO) */
const char *qemu_9p_device(const struct target *t);

#endif
