/*
 * bench-init.c - the floor of make bench: a do-nothing static init that only
 * powers off, as in the fast-path issue's own measurement ("the Debian 6.1
 * amd64 kernel with a do-nothing static init that only powers off"). Packed
 * alone into an initramfs by scripts/bench; no modules, no disks, no harness.
 */
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	reboot(RB_POWER_OFF);
	reboot(RB_AUTOBOOT);	/* no ACPI: -no-reboot turns a reboot into QEMU's exit */
	for (;;)
		pause();
}
