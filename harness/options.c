/* options.c - the job and target files' keys: type, default, bounds, choices, help */
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define JOFF(f) offsetof(struct job, f)
#define TOFF(f) offsetof(struct target, f)

static const char *const fs_choices[] = { "ext2", "ext3", "ext4", "xfs", "none", NULL };
static const char *const accel_choices[] = { "auto", "kvm", "tcg", NULL };
static const char *const mode_choices[] = { "wallclock", "icount", "icount-sleep", NULL };
static const char *const backing_choices[] = { "file", "tmpfs", "ram", NULL };
static const char *const host_cache_choices[] = { "keep", "drop", NULL };
static const char *const cache_choices[] = { "auto", "none", "writeback", "writethrough",
					     "directsync", "unsafe", NULL };
static const char *const direction_choices[] = { "lower", "higher", NULL };
static const char *const initramfs_choices[] = { "plain", "gzip", NULL };
static const char *const boot_choices[] = { "pvh", "image", NULL };

const struct opt job_opts[] = {
	{ "job", "name", OPT_STR, JOFF(name), NULL, 0, 0, NULL, "job name, used in run ids" },
	{ "job", "workload", OPT_STR, JOFF(workload), NULL, 0, 0, NULL, "guest workload (kpair help workloads)" },
	{ "job", "timeout", OPT_DURATION, JOFF(timeout_ms), "300s", 1, 86400000, NULL, "workload time limit, from hello to done" },
	{ "job", "boot_timeout", OPT_DURATION, JOFF(boot_timeout_ms), "120s", 1, 3600000, NULL, "QEMU start to the agent's hello" },
	{ "job", "memory", OPT_SIZE, JOFF(memory), "1G", 64ULL << 20, 64ULL << 30, NULL, "guest memory" },
	{ "job", "cpus", OPT_COUNT, JOFF(cpus), "1", 1, 64, NULL, "guest vCPUs" },
	{ "job", "cmdline", OPT_STR, JOFF(cmdline), "", 0, 0, NULL, "extra kernel command line" },
	{ "job", "target", OPT_STR, JOFF(target), "x86_64", 0, 0, NULL, "configs/targets/<target>.target" },
	{ "job", "accel", OPT_ENUM, JOFF(accel), "auto", 0, 0, accel_choices, "auto probes KVM, else TCG" },
	{ "job", "mode", OPT_ENUM, JOFF(mode), "wallclock", 0, 0, mode_choices, "wallclock: real time; icount: guest time counts instructions (-icount shift=0,sleep=off); icount-sleep: the same, but idle time passes in real time (sleep=on)" },
	{ "job", "pin", OPT_STR, JOFF(pin), "none", 0, 0, NULL, "bind QEMU to one host CPU: none, auto (the last CPU) or a CPU number" },
	{ "job", "pin_io", OPT_STR, JOFF(pin_io), "none", 0, 0, NULL, "with job.pin: QEMU's main loop and I/O threads on this host CPU (auto: CPU 0), job.pin then holds only the vCPU threads; none: all on job.pin" },
	{ "job", "host_cache", OPT_ENUM, JOFF(host_cache), "keep", 0, 0, host_cache_choices, "keep, or drop: sync and drop the host's page cache (vm.drop_caches=3, root) before each boot" },
	{ "job", "seed", OPT_COUNT, JOFF(seed), "1", 0, UINT64_MAX, NULL, "seed for the workload's random choices" },
	{ "job", "metric", OPT_STR, JOFF(metric), "", 0, 0, NULL, "the primary metric, named before any run: an A/B tests it alone at alpha 0.05, the others under Benjamini-Hochberg (default: the claim's metric; ab --metric overrides)" },
	{ "disk", "fs", OPT_ENUM, JOFF(fs), "ext4", 0, 0, fs_choices, "scratch filesystem, made on the host" },
	{ "disk", "blocksize", OPT_SIZE, JOFF(blocksize), "4096", 512, 65536, NULL, "fs block size" },
	{ "disk", "size", OPT_SIZE, JOFF(disk_size), "2G", 16ULL << 20, 4ULL << 40, NULL, "scratch disk size (sparse)" },
	{ "disk", "mkfs_options", OPT_STR, JOFF(mkfs_options), "", 0, 0, NULL, "extra mkfs arguments, split on spaces" },
	{ "disk", "backing", OPT_ENUM, JOFF(backing), "file", 0, 0, backing_choices, "where the scratch image lives: file (the run directory), tmpfs (/dev/shm), or ram: copied into a guest RAM disk (brd) before the workload, so no I/O leaves the guest" },
	{ "disk", "cache", OPT_ENUM, JOFF(cache), "auto", 0, 0, cache_choices, "QEMU cache mode; auto: none where O_DIRECT works, else writeback" },
	{ "disk", "mount_options", OPT_STR, JOFF(mount_options), "", 0, 0, NULL, "mount data string in the guest" },
	{ "pair", "source", OPT_STR, JOFF(pair_source), "", 0, 0, NULL, "kernel source to build stock and patched from: linux-source-6.1 or a directory" },
	{ "pair", "patches", OPT_STR, JOFF(pair_patches), "", 0, 0, NULL, "patches of the patched side, in order, relative to the project root" },
	{ "pair", "config", OPT_STR, JOFF(pair_config), "", 0, 0, NULL, "config fragment (default configs/kconfig/<target>.config)" },
	{ "claim", "source", OPT_STR, JOFF(claim_source), "", 0, 0, NULL, "where the published figures come from" },
	{ "claim", "metric", OPT_STR, JOFF(claim_metric), "", 0, 0, NULL, "the workload metric the claim is about" },
	{ "claim", "unit", OPT_STR, JOFF(claim_unit), "", 0, 0, NULL, "unit of the published figures" },
	{ "claim", "better", OPT_ENUM, JOFF(claim_direction), "lower", 0, 0, direction_choices, "lower or higher values are better" },
	{ "claim", "stock", OPT_STR, JOFF(claim_stock), "", 0, 0, NULL, "published baseline figures, space separated" },
	{ "claim", "patched", OPT_STR, JOFF(claim_patched), "", 0, 0, NULL, "published figures of the other side" },
	{ "claim", "change", OPT_STR, JOFF(claim_change), "", 0, 0, NULL, "published change of patched vs stock, e.g. -31%" },
	{ "claim", "note", OPT_STR, JOFF(claim_note), "", 0, 0, NULL, "what the two sides are" },
	{ NULL },
};

const struct opt target_opts[] = {
	{ "target", "name", OPT_STR, TOFF(name), NULL, 0, 0, NULL, "target name" },
	{ "target", "arch", OPT_STR, TOFF(arch), NULL, 0, 0, NULL, "Debian architecture (amd64, i386, arm64)" },
	{ "target", "qemu", OPT_STR, TOFF(qemu), NULL, 0, 0, NULL, "QEMU system emulator" },
	{ "target", "machine", OPT_STR, TOFF(machine), "pc", 0, 0, NULL, "-M value" },
	{ "target", "bios", OPT_STR, TOFF(bios), "", 0, 0, NULL, "-bios firmware image (empty: the machine's default, SeaBIOS on pc/q35)" },
	{ "target", "cpu", OPT_STR, TOFF(cpu), "", 0, 0, NULL, "-cpu value (empty: QEMU's default)" },
	{ "target", "console", OPT_STR, TOFF(console), "ttyS0", 0, 0, NULL, "kernel console device" },
	{ "target", "agent", OPT_STR, TOFF(agent), NULL, 0, 0, NULL, "static guest agent, relative to the project root" },
	{ "target", "modules", OPT_STR, TOFF(modules), "", 0, 0, NULL, "modules the guest loads, besides the fs" },
	{ "target", "serial_device", OPT_STR, TOFF(serial_dev), "virtio-serial-pci", 0, 0, NULL, "virtio-serial controller" },
	{ "target", "block_device", OPT_STR, TOFF(blk_dev), "virtio-blk-pci", 0, 0, NULL, "virtio-blk device model" },
	{ "target", "boot", OPT_ENUM, TOFF(boot), "image", 0, 0, boot_choices, "pvh: the ELF vmlinux through QEMU's PVH entry where the kernel has it; image: vmlinuz" },
	{ "target", "append", OPT_STR, TOFF(extra_append), "", 0, 0, NULL, "kernel command line the target needs" },
	{ "target", "initramfs", OPT_ENUM, TOFF(initramfs), "plain", 0, 0, initramfs_choices, "gzip or plain: whichever boots faster on this target's boot path (make bench)" },
	{ "target", "kernel", OPT_STR, TOFF(kernel), "", 0, 0, NULL, "default kernel id (kpair kernel fetch debian:<id>), used when run gets no --kernel" },
	{ "target", "page_size", OPT_SIZE, TOFF(page_size), "0", 0, 65536, NULL, "page size the kernel must have (0: any); a kernel with another is refused" },
	{ NULL },
};
