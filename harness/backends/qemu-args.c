/* qemu-args.c - the QEMU machine options of a run, once for every way a run is booted */
#include <stdio.h>
#include <string.h>

#include "backends/qemu-args.h"

static void add_num(qemu_add_fn add, void *ctx, const char *opt, const char *fmt,
		    unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), fmt, v);
	add(ctx, opt, buf);
}

void qemu_args_machine(const struct qemu_machine *m, qemu_add_fn add, void *ctx)
{
	const struct target *t = m->target;

	add(ctx, "-M", t->machine);
	add(ctx, "-accel", m->accel);
	if (*t->bios)
		add(ctx, "-bios", t->bios);
	if (*t->cpu)
		add(ctx, "-cpu", t->cpu);
	if (m->icount)
		add(ctx, "-icount", m->icount);
	if (m->memory)
		add_num(add, ctx, "-m", "%lluM", (unsigned long long)(m->memory >> 20));
	add_num(add, ctx, "-smp", "%llu", (unsigned long long)m->cpus);
	add(ctx, "-nodefaults", NULL);
	add(ctx, "-no-user-config", NULL);
	if (m->display && !strcmp(m->display, "-nographic"))
		add(ctx, "-nographic", NULL);
	else if (m->display)
		add(ctx, "-display", m->display + strlen("-display "));
	add(ctx, "-no-reboot", NULL);
}

void qemu_args_results_port(const struct target *t, const char *chardev, qemu_add_fn add,
			    void *ctx)
{
	char dev[128];

	snprintf(dev, sizeof(dev), "%s,id=vser", t->serial_dev);
	add(ctx, "-device", dev);
	add(ctx, "-chardev", chardev);
	add(ctx, "-device", "virtserialport,bus=vser.0,chardev=res,name=org.kpair.results");
}

const char *qemu_9p_device(const struct target *t)
{
	return strstr(t->blk_dev, "-pci") ? "virtio-9p-pci" : "virtio-9p-device";
}

void qemu_args_host_root(const struct target *t, const char *path, qemu_add_fn add, void *ctx)
{
	char buf[4200];

	/* read-only: the guest sees the host's files, never writes them */
	snprintf(buf, sizeof(buf), "local,id=hostroot,path=%s,security_model=none,readonly=on", path);
	add(ctx, "-fsdev", buf);
	snprintf(buf, sizeof(buf), "%s,fsdev=hostroot,mount_tag=hostroot", qemu_9p_device(t));
	add(ctx, "-device", buf);
}
