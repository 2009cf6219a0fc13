# kpair - kernel A/B regression harness.
#   make          harness/kpair and the static guest agent(s)
#   make check    every test: unit (cmocka), golden, and boot tests with real QEMU guests
#   make demo     install what is missing, fetch two kernels, A/B them
#   make bench    speed figures, as ratios from one run
# V=1 shows the commands; SANITIZE=address,undefined builds the host code with sanitizers.

CC ?= cc
ARCH := $(shell uname -m)
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers
DEFS := -D_GNU_SOURCE
PKGS := jansson libarchive inih liblzma gsl libvirt libcurl libmicrohttpd zlib
SANITIZE ?=
SANFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)
HOST_CFLAGS = $(CFLAGS) $(WARN) $(DEFS) -Iharness $(SANFLAGS) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
HOST_LIBS = $(SANFLAGS) $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
GUEST_CFLAGS = -O2 -g0 $(WARN) $(DEFS) -static
# 64-bit off_t on i686 too: files past 2 GiB (pread-partial, fio sizes)
GUEST_CFLAGS += -D_FILE_OFFSET_BITS=64

KERNEL ?= 6.1.0-57-amd64
# make demo: the kernel as Debian ships it (stock) against the same kernel booted with
# init_on_alloc=0 (patched), in the seed jobs' precise mode (configs/jobs/demo.job says why
# they differ), then an A/A of the shipped kernel on both sides
DEMO_JOB ?= configs/jobs/demo.job
DEMO_RUNS ?= 5
DEMO_AA_RUNS ?= 3
DEMO_PATCHED_SET ?= job.cmdline=quiet init_on_alloc=0

ifneq ($(V),1)
Q = @
quiet = @printf '  %-7s %s\n' $(1) $(2);
endif

HARNESS := config job options kernels/kernel image backends/vm backends/qemu backends/qemu-args backends/accel channel samples stats verdict compare compare-json compare-table html ab ab-runs ab-plan ab-finish result kernels/source kernels/build run spawn util yaml main
HARNESS += tarball
HARNESS += bench bench-fio bench-cmd
HARNESS += preflight kernels/kneeds
HARNESS += summary run-inputs
HARNESS += counters-cmp
HARNESS += profilers/profiler profilers/insns profilers/profile-diff profilers/profile-ab \
	profilers/stacks profilers/flame profilers/profile-html
HARNESS += series nightly nightly-cp nightly-bisect history changepoint mail bisect bisect-search
HARNESS += backends/libvirt backends/libvirt-remote
HARNESS += backends/lava backends/lava-job backends/lava-run backends/lava-serve
HARNESS += exports/export exports/jfile
HARNESS += exports/export-lava exports/export-kcidb exports/export-kcidb-ab
HARNESS += kernels/tree kernels/tree-package kernels/tree-dir kernels/tree-git kernels/gitsrc kernels/kconfig kernels/build-whole kernels/sides kernels/import kernels/kernel-cmd kernels/kernel-pvh kernels/pool
SHARED := workload units record jwalk child $(patsubst guest/%.c,%,$(wildcard guest/wl-*.c))
GUEST := agent cycles counters $(SHARED)

# sanitized and plain objects apart, so the two builds never mix objects
B := build/$(if $(SANITIZE),sanitize,default)
HOST_OBJS := $(HARNESS:%=$(B)/host/harness/%.o) $(SHARED:%=$(B)/host/guest/%.o)
LIB_OBJS := $(filter-out $(B)/host/harness/main.o,$(HOST_OBJS))

UNIT := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/t-*.c))
UNIT_BINS := $(UNIT:%=$(B)/tests/%)
CHECK_UNIT_BINS := $(UNIT:%=build/sanitize/tests/%)

AGENTS := guest/kpair-agent-$(ARCH)
ifneq ($(shell command -v i686-linux-gnu-gcc 2>/dev/null),)
AGENTS += guest/kpair-agent-i686
endif
ifneq ($(shell command -v aarch64-linux-gnu-gcc 2>/dev/null),)
AGENTS += guest/kpair-agent-aarch64
endif

all: harness/kpair $(AGENTS)

# rebuild host objects when the flags change (git's GIT-CFLAGS trick)
$(B)/host/FLAGS: FORCE
	@mkdir -p $(@D)
	@echo '$(HOST_CFLAGS) $(HOST_LIBS)' | cmp -s - $@ || echo '$(HOST_CFLAGS) $(HOST_LIBS)' > $@

$(B)/host/%.o: %.c $(B)/host/FLAGS
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(HOST_CFLAGS) -MMD -MP -c -o $@ $<

# harness/kpair is one file for both builds: relink it when the build switches
# (build/kpair-linked names the build the binary comes from)
harness/kpair: $(HOST_OBJS) build/kpair-linked
	$(call quiet,LINK,$@)$(CC) -o $@ $(HOST_OBJS) $(HOST_LIBS)

build/kpair-linked: FORCE
	@mkdir -p $(@D)
	@echo '$(B)' | cmp -s - $@ || echo '$(B)' > $@

# the static guest agent, one per target architecture
guest/kpair-agent-$(ARCH): $(GUEST:%=guest/%.c) $(wildcard guest/*.h guest/*.def)
	$(call quiet,CC,$@)$(CC) $(GUEST_CFLAGS) -o $@ $(GUEST:%=guest/%.c)
guest/kpair-agent-i686: $(GUEST:%=guest/%.c) $(wildcard guest/*.h guest/*.def)
	$(call quiet,CC,$@)i686-linux-gnu-gcc $(GUEST_CFLAGS) -o $@ $(GUEST:%=guest/%.c)
guest/kpair-agent-aarch64: $(GUEST:%=guest/%.c) $(wildcard guest/*.h guest/*.def)
	$(call quiet,CC,$@)aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -o $@ $(GUEST:%=guest/%.c)

$(B)/tests/t-%: tests/unit/t-%.c $(LIB_OBJS) $(wildcard tests/sim/*.h)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(CC) $(HOST_CFLAGS) -Iharness -Iguest -Itests/sim -o $@ $< $(LIB_OBJS) $(HOST_LIBS) -lcmocka

deps:
	$(Q)scripts/deps

# the i386 and arm64 targets: cross compilers for their agents, qemu-system-arm
deps-cross:
	$(Q)scripts/deps cross

# a local LAVA lab for the lava backend's test (scripts/lava-lab-up)
deps-lava:
	$(Q)scripts/deps lava

images/kernels/$(KERNEL)/kernel.json: | harness/kpair
	$(Q)harness/kpair kernel fetch debian:$(KERNEL)

kernel: images/kernels/$(KERNEL)/kernel.json

# every target's default kernel (configs/targets/<t>.target: kernel = <id>)
TARGETS := $(patsubst configs/targets/%.target,%,$(wildcard configs/targets/*.target))
TARGET_KERNELS := $(foreach t,$(TARGETS),$(shell sed -n 's/^kernel *= *//p' configs/targets/$(t).target))
CROSS_AGENTS := guest/kpair-agent-i686 guest/kpair-agent-aarch64

images/kernels/%/kernel.json: | harness/kpair
	$(Q)harness/kpair kernel fetch debian:$*

kernels-all: kernel $(TARGET_KERNELS:%=images/kernels/%/kernel.json)

# check: sanitized host build, unit tests, then boot tests against a real kernel
check: deps deps-cross deps-lava
	$(Q)$(MAKE) --no-print-directory SANITIZE=address,undefined all unit-bins $(CROSS_AGENTS)
	$(Q)$(MAKE) --no-print-directory kernels-all
	$(Q)KPAIR_KERNEL=$(KERNEL) CMOCKA_MESSAGE_OUTPUT=TAP prove --timer --exec '' $(PROVE_FLAGS) \
		$(CHECK_UNIT_BINS) $(sort $(wildcard tests/golden/*.t)) $(sort $(wildcard tests/boot/*.t))

unit-bins: $(UNIT_BINS)

# make sim: the verdict rule's error rates, power, interval coverage, advice and bisect, by
# simulation with kpair's own code (docs/ab.md quotes these tables); SIM_TRIALS=N to change
$(B)/tests/sim-verdicts: tests/sim/sim-verdicts.c tests/sim/sim.h $(LIB_OBJS)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(CC) $(HOST_CFLAGS) -Iharness -Iguest -o $@ $< $(LIB_OBJS) $(HOST_LIBS)

sim: $(B)/tests/sim-verdicts
	$(Q)$(B)/tests/sim-verdicts $(SIM_SECTIONS)

# exit 1 of ab or calibrate is a regression found, not a failure; no warm-up boot: under
# icount a run's times do not depend on how warm the host is
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory kernel
	$(Q)d=results/demo-$$(date +%Y%m%d-%H%M%S); \
	harness/kpair ab $(DEMO_JOB) --stock $(KERNEL) --patched $(KERNEL) --warmup 0 \
		--patched-set '$(DEMO_PATCHED_SET)' -n $(DEMO_RUNS) $(DEMO_SETS) -o $$d/ab; \
	[ $$? -le 1 ] || exit 1; echo; \
	harness/kpair calibrate $(DEMO_JOB) --kernel $(KERNEL) --warmup 0 -n $(DEMO_AA_RUNS) \
		$(DEMO_SETS) -o $$d/aa; \
	[ $$? -le 1 ] || exit 1; \
	echo; echo "demo: $(KERNEL) as shipped (stock) against the same with $(DEMO_PATCHED_SET) (patched):"; \
	echo "  A/B: $$(jq -r '.summary[0]' $$d/ab/comparison.json)"; \
	echo "  A/A: $$(jq -r '.summary[0]' $$d/aa/comparison.json)"; \
	echo "  -> $$d/ab/report.html, $$d/aa/report.html"

bench: deps deps-lava
	$(Q)$(MAKE) --no-print-directory all kernel
	$(Q)KPAIR_KERNEL=$(KERNEL) scripts/bench
	$(Q)TARGETS="x86_64-pc x86_64-seabios x86_64 x86_64-microvm" scripts/bench-targets
	$(Q)KPAIR_KERNEL=$(KERNEL) scripts/bench-modes
	$(Q)scripts/bench-effect
	$(Q)KPAIR_KERNEL=$(KERNEL) scripts/bench-git
	$(Q)KPAIR_KERNEL=$(KERNEL) scripts/bench-lava

# boot time per target, as ratios to x86_64
bench-targets: deps-cross
	$(Q)$(MAKE) --no-print-directory all kernels-all
	$(Q)scripts/bench-targets

# make fuzz: the libFuzzer targets in tests/fuzz (clang), FUZZ_SECONDS each, corpus kept in
# build/fuzz/corpus-<t>; not part of check (t-channel runs 12000 inputs there)
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	$(WARN) $(DEFS) -Iharness -Iguest $(shell pkg-config --cflags jansson inih 2>/dev/null)
FUZZ_LIBS = $(shell pkg-config --libs jansson inih 2>/dev/null) -lm
FUZZ_channel := harness/channel.c
FUZZ_job := harness/config.c harness/options.c harness/bench.c harness/bench-fio.c harness/bench-cmd.c harness/util.c harness/spawn.c $(SHARED:%=guest/%.c)
FUZZ := channel job

build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(wildcard harness/*.h harness/*/*.h guest/*.h) FORCE
	@mkdir -p $(@D)
	$(call quiet,FUZZCC,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_$*) $(FUZZ_LIBS)

fuzz: $(FUZZ:%=build/fuzz/fuzz-%)
	$(Q)for t in $(FUZZ); do \
		mkdir -p build/fuzz/corpus-$$t build/fuzz/crashes-$$t && \
		cp -n tests/fuzz/seeds-$$t/* build/fuzz/corpus-$$t/ && \
		ASAN_OPTIONS=log_path=build/fuzz/asan-$$t UBSAN_OPTIONS=log_path=build/fuzz/ubsan-$$t \
		build/fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=build/fuzz/crashes-$$t/ build/fuzz/corpus-$$t \
			>build/fuzz/fuzz-$$t.log 2>&1; \
		st=$$?; echo "fuzz-$$t: $$(grep -E '^Done' build/fuzz/fuzz-$$t.log)"; \
		[ $$st = 0 ] || { tail -30 build/fuzz/fuzz-$$t.log build/fuzz/asan-$$t.* 2>/dev/null; \
			echo "fuzz-$$t: a crash, kept in build/fuzz/crashes-$$t/"; exit 1; }; \
	done

clean:
	rm -rf $(B) harness/kpair guest/kpair-agent-*

.PHONY: all check demo bench clean deps kernel unit-bins fuzz sim FORCE
.PHONY: deps-cross deps-lava kernels-all bench-targets
-include $(shell find $(B) -name '*.d' 2>/dev/null)
