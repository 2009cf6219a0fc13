/* kernel-cmd.h - `kpair kernel ...`: fetch, list, build, pair, import */
#ifndef KPAIR_KERNEL_CMD_H
#define KPAIR_KERNEL_CMD_H

/* argv[0] is "kernel"; returns kpair's exit status (2 usage, 3 a failed fetch or build) */
int cmd_kernel(int argc, char **argv);

#endif
