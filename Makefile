# SPDX-License-Identifier: GPL-2.0
#
# ketw top-level Makefile: builds the module, the tool and the selftests,
# and runs them in a QEMU guest. "make help" lists the targets.
# (Kbuild reads ./Kbuild, not this file, for the module build itself.)

# No "Entering/Leaving directory" noise: check's last line is its summary.
MAKEFLAGS += --no-print-directory

TOP   := $(CURDIR)
BUILD := $(TOP)/build

# The kernel to build against and boot: scripts/kernel.sh chooses it (KDIR
# wins; else KVER; else the newest /lib/modules/<ver> with both a build dir
# and a /boot/vmlinuz-<ver>) when a recipe needs it, never while make reads
# this file: check, demo and bench install the kernel packages first, in
# the same run. KDIR, KVER and VMLINUZ from the command line or the
# environment reach the script as environment variables.
KERNEL_SH   := $(TOP)/scripts/kernel.sh
# Recipe prefix: sets $$KVER, $$KDIR and $$VMLINUZ in the recipe's shell,
# or stops with a line naming what is missing.
WITH_KERNEL  = k=$$($(KERNEL_SH) --check) && eval "$$k" &&

INITRD  := $(BUILD)/initramfs.cpio.gz
KOS     := $(TOP)/module/ketw.ko $(TOP)/module/samples/ketw_sample.ko \
	   $(TOP)/module/samples/ketw_stress.ko
TOOL    := $(TOP)/tools/ketw/ketw
SELFTESTS_OUT := $(BUILD)/selftests/ketw

# Knobs for scripts/mkinitramfs.sh and scripts/run-vm.sh (see there).
KETW_MODULES     ?= $(KOS)
KETW_TOOL        ?= $(TOOL)
KETW_TESTS_DIR   ?= $(SELFTESTS_OUT)
SELFTESTS_SRCDIR ?= $(TOP)/selftests/ketw
VM_DEBUG         ?= slub_debug=FZPU page_poison=1
# trace-cmd for selftests/ketw/tracecmd_test (scripts/deps.sh installs it).
EXTRA_BINS       ?= /usr/bin/trace-cmd
export KETW_MODULES KETW_TOOL KETW_TESTS_DIR SELFTESTS_SRCDIR EXTRA_BINS
export VM_TIMEOUT TEST_TIMEOUT VM_ACCEL VM_CPU VM_SMP VM_MEM \
	VM_APPEND VM_DEBUG VM_QUIET DMESG_ALLOW

DEPS_SCRIPT ?= $(TOP)/scripts/deps.sh
DEPS := $(if $(NO_DEPS),@echo "  DEPS    skipped (NO_DEPS)",$(DEPS_SCRIPT))

.PHONY: all module tools selftests unit viewers-test initramfs check vm-check demo \
	check-kcsan kmod-kasan kmod-kcsan vm-check-kasan vm-check-kcsan \
	vm-demo shell vm-shell scripts-test checkpatch sparse deps clean help kver bench vm-bench \
	bench-tools bench-compare fuzz fuzz-kernel vm-fuzz-kernel lttng-test
.PHONY: install uninstall install-conf dkms-source stage install-check

all: module tools selftests

help:
	@echo 'ketw make targets:'
	@echo '  all (default) build module, tools and selftests'
	@echo '  module        build module/ketw.ko and module/samples/ketw_sample.ko'
	@echo '  tools         build tools/ketw/ketw (make -C tools)'
	@echo '  selftests     build selftests/ketw/*.c into build/selftests/ketw/'
	@echo '  unit          host unit tests (make -C tools test)'
	@echo '  viewers-test  host tests of the viewers: babeltrace2 (plugin, CTF, merge,'
	@echo '                python3-bt2), ketw convert --to chrome, ketw plot in headless'
	@echo '                Chromium, all against ketw report (Documentation/ketw-viewers.rst)'
	@echo '  native-test   module/ring.c built natively: nesting explorer, stress under'
	@echo '                ThreadSanitizer and UBSan (tools/native/README.md)'
	@echo '  native-bench  ns/event of ketw_ring_write() natively, against reference rings'
	@echo '  native-profile  where a native write'"'"'s time goes, part by part (perf)'
	@echo '  native-count  instructions per native write, against the references (valgrind)'
	@echo '  scripts-test  host tests of the harness (scripts/tests/)'
	@echo '  check         deps + all + checkpatch + sparse + unit + viewers-test + scripts-test + fuzz-check + the selftests'
	@echo '                in a QEMU guest, on Debian'"'"'s kernel and on a KASAN+lockdep one'
	@echo '  check-kcsan   check, then the selftests on a KCSAN kernel'
	@echo '  vm-check-kasan, vm-check-kcsan   only that guest run (builds the debug'
	@echo '                kernel into ~/.cache/ketw the first time, 4-10 min)'
	@echo '  fuzz          libFuzzer on the file reader and templates, random seeds'
	@echo '                (FUZZ_SECONDS=600 each); check runs fixed seeds'
	@echo '  fuzz-kernel   deps + build + the kernel fuzzers (selftests/ketw/kfuzz_*)'
	@echo '                alone in a QEMU guest, FUZZ_KERNEL_SECONDS=600 each, from a'
	@echo '                random seed or KETW_FUZZ_SEED=N (printed); check runs them'
	@echo '                briefly from seed 1; logs in build/vm-fuzz/; KFUZZ_KERNEL=kasan'
	@echo '                on the KASAN+lockdep kernel (logs in build/vm-fuzz-kasan/)'
	@echo '  vm-fuzz-kernel  only the QEMU part of fuzz-kernel'
	@echo '  vm-check      only the QEMU part of check (nothing is rebuilt but selftests'
	@echo '                and build/stage)'
	@echo '  demo          deps + build + run scripts/guest/demo.sh in a QEMU guest'
	@echo '  vm-demo       only the QEMU part of demo'
	@echo '  shell         deps + build + boot the guest with the modules loaded into a shell'
	@echo '  vm-shell      only the QEMU part of shell'
	@echo '  lttng-test    a .ketw file and an LTTng kernel trace of one guest boot merged'
	@echo '                by babeltrace2 on one timeline (skipped, saying why, without'
	@echo '                LTTng: scripts/lttng-modules.sh, lttng-tools)'
	@echo '  bench         deps + build + run scripts/guest/bench.sh in a QEMU guest:'
	@echo '                a table of figures (not a test), saved to build/bench.txt;'
	@echo '                before it native-bench and uprov-host-bench (libketw'"'"'s'
	@echo '                disabled call site on this CPU) and frame-host-bench (the live'
	@echo '                stream'"'"'s framing: frames/s, MB/s, overhead against the file)'
	@echo '  vm-bench      only the QEMU part of bench'
	@echo '  vm-profile    where the guest write spends its time: perf samples by part'
	@echo '                (PROFILE_SIZES=8,64 PROFILE_SESSIONS=1,16; needs linux-perf)'
	@echo '  bench-compare A=<commit> B=<commit>   the write rows of bench for two'
	@echo '                commits: both built against the same kernel in'
	@echo '                build/compare/<sha>/, loaded turn about in one guest boot'
	@echo '                (COMPARE_ROUNDS=4 times each); per row A, B, B/A and'
	@echo '                their spreads, saved to build/bench-compare.txt'
	@echo '  install       ketw.ko to /lib/modules/KVER/updates (then depmod), the tool,'
	@echo '                its man page, headers and libketw (.so.0, .a, ketw.pc) under'
	@echo '                PREFIX=/usr/local, DESTDIR honoured'
	@echo '  uninstall     remove what install put there'
	@echo '  install-conf  /etc/modprobe.d/ketw.conf: user_gid=KETW_USER_GID (not in install)'
	@echo '  dkms-source   the DKMS source tree /usr/src/ketw-VERSION (DESTDIR honoured)'
	@echo '  install-check host test: install/uninstall, dkms build in a throwaway tree,'
	@echo '                samples/out-of-tree built from the staged tree (build/stage)'
	@echo '  stage         make install DESTDIR=build/stage plus samples/out-of-tree;'
	@echo '                the guest'"'"'s oot_test modprobes from it'
	@echo '  checkpatch    checkpatch.pl --strict over module/, uapi/ and samples/'
	@echo '  sparse        build the module with sparse (C=2); any warning fails it'
	@echo '  deps          install missing Debian packages (scripts/deps.sh)'
	@echo '  clean         remove everything built'
	@echo '  kver          print the kernel version, KDIR and VMLINUZ in use'
	@echo 'knobs: KDIR KVER VMLINUZ (chosen by scripts/kernel.sh) NO_DEPS=1 VM_TIMEOUT=600 TEST_TIMEOUT=300'
	@echo '       VM_ACCEL (tcg,thread=single; bench: tcg) VM_CPU VM_SMP VM_MEM VM_APPEND'
	@echo '       VM_DEBUG VM_QUIET=1'
	@echo '       EXTRA_BINS=/usr/bin/trace-cmd (default) KETW_MODULES KETW_TOOL'
	@echo '       KETW_TESTS_DIR SELFTESTS_SRCDIR DMESG_ALLOW V=1'
	@echo '       BENCH_APPEND="tsc=reliable" BENCH_VM_DEBUG= (bench only) COMPARE_ROUNDS=4'
	@echo '       CHECK_APPEND="tsc=reliable" (check and fuzz-kernel)'
	@echo '       FUZZ_KERNEL_SECONDS=600 KETW_FUZZ_SEED=N KFUZZ_ONLY="kfuzz_*" KFUZZ_KERNEL=kasan'
	@echo '       KFUZZ_ENV="KETW_FUZZ_AVOID=fdrace KETW_FUZZ_THREADS=4 ..." FUZZ_KERNEL_APPEND'
	@echo '       (fuzz-kernel)'
	@echo '       DESTDIR PREFIX=/usr/local LIBDIR=PREFIX/lib DEPMOD=depmod LDCONFIG=ldconfig'
	@echo '       SIGN_KEY SIGN_CERT (install)'

kver:
	@$(WITH_KERNEL) echo "KVER=$$KVER KDIR=$$KDIR VMLINUZ=$$VMLINUZ"

deps:
	$(DEPS)

# Any warning fails the build (scripts/kbuild.sh), W=1's included: the
# kernel's extra warnings for new code, and kernel-doc's check of every
# kernel-doc comment.
module:
	@$(WITH_KERNEL) $(TOP)/scripts/kbuild.sh $(MAKE) -C "$$KDIR" M=$(TOP) W=1 modules

sparse:
	@$(WITH_KERNEL) $(TOP)/scripts/kbuild.sh $(MAKE) -C "$$KDIR" M=$(TOP) C=2 modules

tools:
	$(MAKE) -C tools

unit:
	$(MAKE) -C tools test

# The viewers (Documentation/ketw-viewers.rst) on ketw's files, against
# ketw report: babeltrace2 through the plugin, CTF and back, merging,
# python3-bt2; ketw convert --to chrome; ketw plot in headless Chromium.
# Its last line: "N passed, M failed".
viewers-test: tools
	$(MAKE) -C tools gen-traces
	/usr/bin/python3 $(TOP)/tools/tests/viewers/viewers_test.py \
		--ketw $(TOOL) --plugin-dir $(TOP)/tools/babeltrace2 \
		--gen $(TOP)/tools/tests/gen/ketw-gen-traces

# Host tests of the harness itself (scripts/tests/*-test.sh).
scripts-test:
	@for t in $(TOP)/scripts/tests/*-test.sh; do \
		echo "  TEST    $${t#$(TOP)/}"; bash "$$t" || exit 1; done

selftests:
	$(MAKE) -C selftests/ketw BUILD=$(BUILD) OUTPUT=$(SELFTESTS_OUT) SRCDIR=$(SELFTESTS_SRCDIR)

# Always repacked: cheap, and it must never hold stale binaries. The
# staged root (make stage) goes in as /ketw/stage for oot_test.
initramfs: selftests stage
	KETW_STAGE=$(STAGE) $(TOP)/scripts/mkinitramfs.sh $(INITRD)

# check, demo and bench: the packages first, then everything that needs
# them (the kernel is chosen after deps; see KERNEL_SH above).
check: deps
	$(MAKE) kver
	$(MAKE) all
	$(MAKE) checkpatch
	$(MAKE) sparse
	$(MAKE) unit
	$(MAKE) viewers-test
	$(MAKE) native-test
	$(MAKE) scripts-test
	$(MAKE) install-check
	$(MAKE) -C tools fuzz-check
	$(MAKE) vm-check
	$(MAKE) lttng-test
	$(MAKE) vm-check-kasan
	@$(TOP)/scripts/check-total.sh $(BUILD)/vm $(BUILD)/vm-kasan

# make check, then the guest suite on the KCSAN kernel too.
check-kcsan: check
	$(MAKE) vm-check-kcsan

# libFuzzer on the file reader and the template parser and evaluator.
fuzz: deps
	$(MAKE) -C tools fuzz

# The kernel fuzzers, long: selftests/ketw/kfuzz_* alone (ketwonly), each
# for FUZZ_KERNEL_SECONDS (ketwfuzz, KETW_FUZZ_SECONDS in the guest) from
# KETW_FUZZ_SEED or a random seed (ketwseed), which is printed first so a
# failure can be replayed. KFUZZ_ENV passes more KETW_* variables
# (ketwenv). KFUZZ_KERNEL=kasan (or kcsan) boots the debug kernel of
# make check (KASAN, lockdep, ...; see "debug kernels" below) instead of
# Debian's. Each binary gets its run plus 300 s; the guest, all of them.
FUZZ_KERNEL_SECONDS ?= 600
KFUZZ_ONLY          ?= kfuzz_*
KFUZZ_ENV           ?=
KFUZZ_KERNEL        ?=
# A guest the fuzzers wedged (a lock held by a task that oopsed, a CPU
# spinning in the kernel) panics and ends the run, instead of waiting for
# VM_TIMEOUT: the fuzzer has printed its reproduction by then.
FUZZ_KERNEL_APPEND  ?= softlockup_panic=1 hung_task_panic=1 \
		       sysctl.kernel.hung_task_timeout_secs=60 \
		       sysctl.kernel.panic_on_rcu_stall=1
KFUZZ_TESTS = $(notdir $(basename $(wildcard $(SELFTESTS_SRCDIR)/$(KFUZZ_ONLY).c)))
KFUZZ_INITRD = $(if $(KFUZZ_KERNEL),$(BUILD)/initramfs-$(KFUZZ_KERNEL).cpio.gz,$(INITRD))

fuzz-kernel: deps
	$(MAKE) kver
	$(MAKE) all
	$(MAKE) vm-fuzz-kernel

vm-fuzz-kernel: $(if $(KFUZZ_KERNEL),kmod-$(KFUZZ_KERNEL) selftests,initramfs)
	@[ -n "$(KFUZZ_TESTS)" ] || { echo "fuzz-kernel: no $(KFUZZ_ONLY).c in $(SELFTESTS_SRCDIR)" >&2; exit 1; }
	$(if $(KFUZZ_KERNEL),KETW_MODULES="$(call DEBUG_KOS,$(KFUZZ_KERNEL))" \
		$(TOP)/scripts/mkinitramfs.sh $(KFUZZ_INITRD))
	@seed=$(if $(KETW_FUZZ_SEED),$(KETW_FUZZ_SEED),$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')); \
	per=$$(($(FUZZ_KERNEL_SECONDS) + 300)); \
	echo "  FUZZ    $(KFUZZ_TESTS): $(FUZZ_KERNEL_SECONDS) s each, seed $$seed," \
		"$(or $(KFUZZ_KERNEL),Debian's) kernel (replay: make fuzz-kernel" \
		"KETW_FUZZ_SEED=$$seed$(if $(KFUZZ_KERNEL), KFUZZ_KERNEL=$(KFUZZ_KERNEL)))"; \
	$(if $(KFUZZ_KERNEL),kdir=$$($(TOP)/scripts/debug-kernel.sh $(KFUZZ_KERNEL)) && \
		VMLINUZ=$$kdir/arch/x86/boot/bzImage &&,$(WITH_KERNEL)) \
	VMLINUZ="$$VMLINUZ" INITRD=$(KFUZZ_INITRD) VM_DIR=$(BUILD)/vm-fuzz$(if $(KFUZZ_KERNEL),-$(KFUZZ_KERNEL)) \
		TEST_TIMEOUT=$$per VM_TIMEOUT=$$(($(words $(KFUZZ_TESTS)) * per + 300$(if $(KFUZZ_KERNEL), + 900))) \
		VM_APPEND="$(CHECK_APPEND) $(FUZZ_KERNEL_APPEND) ketwonly=$(KFUZZ_ONLY) ketwfuzz=$(FUZZ_KERNEL_SECONDS) ketwseed=$$seed $(addprefix ketwenv=,$(KFUZZ_ENV)) $(VM_APPEND)" \
		$(if $(filter kcsan,$(KFUZZ_KERNEL)),KCSAN_MODULES='\\[ketw') \
		$(TOP)/scripts/run-vm.sh check; \
	rc=$$?; echo "  FUZZ    seed was $$seed"; exit $$rc

# tsc=reliable: QEMU derives every vCPU's TSC from one host clock, but the
# guest's synchronisation check fails under TCG and would fall back to the
# HPET; on the TSC the tests run the clock path real x86 machines take
# (ketw's inline CLOCK_MONOTONIC, module/clock.h).
CHECK_APPEND   ?= tsc=reliable

vm-check: initramfs
	@$(WITH_KERNEL) VMLINUZ="$$VMLINUZ" INITRD=$(INITRD) \
		VM_APPEND="$(CHECK_APPEND) $(VM_APPEND)" \
		$(TOP)/scripts/run-vm.sh check

# ---- LTTng ------------------------------------------------------------------
# A .ketw file and an LTTng kernel trace recorded together in one guest
# boot (scripts/guest/lttng-merge.sh, ketwmode=lttng), sent to the host
# (LTTNG_OUT) and merged by babeltrace2 (tools/tests/viewers/
# lttng_merge_test.py). LTTng's modules come from scripts/lttng-modules.sh
# (built once into ~/.cache/ketw); without them, or without lttng-tools,
# the test is skipped with the reason.
LTTNG_INITRD := $(BUILD)/initramfs-lttng.cpio.gz
LTTNG_OUT    := $(BUILD)/lttng-merge

lttng-test: module tools
	KETW_TESTS_DIR= KETW_LTTNG=1 $(TOP)/scripts/mkinitramfs.sh $(LTTNG_INITRD)
	@if [ -f $(LTTNG_INITRD).d/ketw/lttng/unavailable ]; then \
		echo "  SKIP    lttng-test: $$(cat $(LTTNG_INITRD).d/ketw/lttng/unavailable)"; \
		exit 0; fi; \
	$(WITH_KERNEL) VMLINUZ="$$VMLINUZ" INITRD=$(LTTNG_INITRD) \
		VM_DIR=$(BUILD)/vm-lttng DEMO_OUT=$(LTTNG_OUT) \
		VM_APPEND="$(CHECK_APPEND) $(VM_APPEND)" \
		$(TOP)/scripts/run-vm.sh lttng && \
	/usr/bin/python3 $(TOP)/tools/tests/viewers/lttng_merge_test.py \
		--plugin-dir $(TOP)/tools/babeltrace2 $(LTTNG_OUT)

# ---- debug kernels --------------------------------------------------------
# The guest suite again on a kernel built from linux-source-6.1 by
# scripts/debug-kernel.sh (cached in ~/.cache/ketw, keyed by its config):
# kasan (KASAN, lockdep, UBSAN, DEBUG_OBJECTS, SLUB debug) in make check,
# kcsan in make check-kcsan. The modules are built against it from a copy
# of their sources in build/kmod-<flavour>/ (Kbuild writes its objects
# next to the sources, and module/ holds the Debian kernel's). KASAN under
# TCG is slow: the guest gets DEBUG_VM_TIMEOUT seconds.
DEBUG_VM_TIMEOUT ?= 1800
DEBUG_KOS = $(patsubst $(TOP)/%,$(BUILD)/kmod-$(1)/%,$(KOS))

kmod-kasan kmod-kcsan: kmod-%:
	@kdir=$$($(TOP)/scripts/debug-kernel.sh $*) && \
	rm -rf $(BUILD)/kmod-$* && mkdir -p $(BUILD)/kmod-$* && \
	tar -C $(TOP) -cf - --exclude='*.o' --exclude='*.ko' --exclude='.*' \
		--exclude='*.mod*' --exclude='modules.order' Kbuild module uapi | \
		tar -C $(BUILD)/kmod-$* -xf - && \
	$(TOP)/scripts/kbuild.sh $(MAKE) -C "$$kdir" M=$(BUILD)/kmod-$* modules

vm-check-kasan vm-check-kcsan: vm-check-%: kmod-% selftests
	@kdir=$$($(TOP)/scripts/debug-kernel.sh $*) && \
	kver=$$(env -u KVER KDIR=$$kdir $(KERNEL_SH) | sed -n 's/^KVER=//p') && \
	KDIR=$$kdir KVER=$$kver KMOD_DIR=$(BUILD)/kmod-$* \
		$(TOP)/scripts/stage.sh $(BUILD)/stage-$*
	KETW_MODULES="$(call DEBUG_KOS,$*)" KETW_STAGE=$(BUILD)/stage-$* \
		$(TOP)/scripts/mkinitramfs.sh $(BUILD)/initramfs-$*.cpio.gz
	@kdir=$$($(TOP)/scripts/debug-kernel.sh $*) && \
	VMLINUZ=$$kdir/arch/x86/boot/bzImage \
	INITRD=$(BUILD)/initramfs-$*.cpio.gz VM_DIR=$(BUILD)/vm-$* \
	VM_TIMEOUT=$(DEBUG_VM_TIMEOUT) VM_APPEND="$(CHECK_APPEND) $(VM_APPEND)" \
	$(if $(filter kcsan,$*),KCSAN_MODULES='\\[ketw') \
		$(TOP)/scripts/run-vm.sh check

demo: deps
	$(MAKE) kver
	$(MAKE) module tools
	$(MAKE) vm-demo

shell: deps
	$(MAKE) kver
	$(MAKE) module tools
	$(MAKE) vm-shell

vm-demo vm-shell: initramfs
	@$(WITH_KERNEL) VMLINUZ="$$VMLINUZ" INITRD=$(INITRD) \
		$(TOP)/scripts/run-vm.sh $(patsubst vm-%,%,$@)

# bench: figures, not a test. Its own initramfs (no selftests, plus
# ketw_bench.ko, ketw-drain-bench, ketw-uprov-bench and bench.sh's
# helpers in /ketw/bench/), its own build/vm-bench/
# logs, and a guest kernel
# without slab debugging, which would dominate the figures. Without
# tsc=reliable the TCG guest finds its TSCs unsynchronised and falls back
# to the HPET, and every ktime_get_*() read becomes an emulated MMIO access.
BENCH_INITRD   := $(BUILD)/initramfs-bench.cpio.gz
BENCH_FILES    := $(TOP)/module/bench/ketw_bench.ko \
		  $(TOP)/tools/bench/ketw-drain-bench \
		  $(TOP)/tools/bench/ketw-uprov-bench \
		  $(TOP)/tools/bench/ketw-write-bench \
		  $(TOP)/scripts/guest/bench-lib.sh
BENCH_APPEND   ?= tsc=reliable
BENCH_VM_DEBUG ?=

bench: deps
	$(MAKE) kver
	$(MAKE) module tools bench-tools
	$(MAKE) native-bench
	$(MAKE) uprov-host-bench
	$(MAKE) frame-host-bench
	$(MAKE) vm-bench

bench-tools:
	$(MAKE) -C tools/bench

# Two commits' write rows, their modules turn about in one guest boot
# (scripts/bench-compare.sh; Documentation/ketw-testing.rst).
COMPARE_ROUNDS ?= 4
bench-compare: deps
	@[ -n "$(A)" ] && [ -n "$(B)" ] || \
		{ echo "usage: make bench-compare A=<commit> B=<commit>" >&2; exit 2; }
	@$(WITH_KERNEL) KDIR="$$KDIR" KVER="$$KVER" VMLINUZ="$$VMLINUZ" \
		BUILD=$(BUILD) COMPARE_ROUNDS=$(COMPARE_ROUNDS) BENCH_APPEND="$(BENCH_APPEND)" \
		$(TOP)/scripts/bench-compare.sh "$(A)" "$(B)"

# libketw's disabled call site on this machine's CPU (no module here: the
# provider is never registered, its page is libketw's static one; the
# code at the call site is the same). Figures in ps per call.
.PHONY: uprov-host-bench
uprov-host-bench: bench-tools
	@echo "  HOST    libketw disabled call site (ps/call; fastest of 15, then medians):"
	@$(TOP)/tools/bench/ketw-uprov-bench --unregistered -n 20000000 | sed 's/^/          /'

# The live stream's framing on this machine's CPU: frames/s and MB/s of
# encode+decode, against the trace file writer, and its byte overhead.
.PHONY: frame-host-bench
frame-host-bench: bench-tools
	@echo "  HOST    stream framing (fastest of 5 runs of 200000 records):"
	@$(TOP)/tools/bench/ketw-frame-bench | sed 's/^/          /'

# module/ring.c built in user space against a shim (tools/native/README.md):
# host tests in make check, host figures in make bench.
.PHONY: native-test native-bench
native-test:
	$(MAKE) -C tools/native test

native-bench:
	$(MAKE) -C tools/native bench

# Where a write's time goes in the guest: perf there, the samples given
# to the write's parts here (scripts/vm-profile.sh). Needs linux-perf.
PROFILE_SIZES    ?= 8,64
PROFILE_SESSIONS ?= 1,16
.PHONY: vm-profile
vm-profile: deps
	$(MAKE) kver
	$(MAKE) module tools
	@$(WITH_KERNEL) VMLINUZ="$$VMLINUZ" BUILD=$(BUILD) \
		BENCH_APPEND="$(BENCH_APPEND)" PROFILE_SIZES="$(PROFILE_SIZES)" \
		PROFILE_SESSIONS="$(PROFILE_SESSIONS)" $(TOP)/scripts/vm-profile.sh

# Where one native write's time goes (perf, where the host allows it).
.PHONY: native-profile native-count
native-profile:
	$(MAKE) -C tools/native profile

native-count:
	$(MAKE) -C tools/native count

vm-bench:
	KETW_TESTS_DIR= KETW_BENCH_FILES="$(BENCH_FILES)" KETW_LTTNG=1 \
		$(TOP)/scripts/mkinitramfs.sh $(BENCH_INITRD)
	@$(WITH_KERNEL) VMLINUZ="$$VMLINUZ" \
		INITRD=$(BENCH_INITRD) VM_DIR=$(BUILD)/vm-bench VM_DEBUG="$(BENCH_VM_DEBUG)" \
		VM_APPEND="$(BENCH_APPEND) $(VM_APPEND)" $(TOP)/scripts/run-vm.sh bench

CHECKPATCH_FILES = $(shell find $(TOP)/module $(TOP)/uapi $(TOP)/samples \
	\( -name '*.c' -o -name '*.h' \) ! -name '*.mod.c' 2>/dev/null | sort)

# ---- install ----------------------------------------------------------------
# make install [DESTDIR=ROOT] [PREFIX=/usr/local] [KVER=...]: what goes
# where is scripts/install.sh (Documentation/ketw-install.rst); ketw.ko
# always goes to DESTDIR/lib/modules/KVER/updates/, then depmod -b DESTDIR.
KETW_VERSION := $(shell cat $(TOP)/VERSION)
PREFIX  ?= /usr/local
INSTALL_ENV = KVER="$$KVER" KDIR="$$KDIR" DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" \
	LIBDIR="$(LIBDIR)" KETW_VERSION="$(KETW_VERSION)"
DKMS_SRC := /usr/src/ketw-$(KETW_VERSION)
# What DKMS needs to build ketw.ko, and nothing else.
DKMS_FILES := dkms.conf VERSION Kbuild module/Kbuild module/include/ketw.h \
	uapi/linux/ketw.h $(filter-out %.mod.c,$(wildcard module/*.c)) \
	$(wildcard module/*.h)
# The staged root the guest's oot_test loads ketw and the out-of-tree
# sample from (scripts/stage.sh).
STAGE   := $(BUILD)/stage

install: module tools
	@$(WITH_KERNEL) $(INSTALL_ENV) $(TOP)/scripts/install.sh install

uninstall:
	@$(WITH_KERNEL) $(INSTALL_ENV) $(TOP)/scripts/install.sh uninstall

install-conf:
	@$(WITH_KERNEL) $(INSTALL_ENV) $(TOP)/scripts/install.sh conf

# Also include/ as make install stages it, for providers (KETW_DIR), and
# the POST_BUILD script that keeps ketw's Module.symvers in DKMS's tree.
dkms-source:
	rm -rf "$(DESTDIR)$(DKMS_SRC)"
	@for f in $(DKMS_FILES); do \
		install -D -m 0644 "$(TOP)/$$f" "$(DESTDIR)$(DKMS_SRC)/$$f" || exit 1; done
	install -D -m 0644 $(TOP)/module/include/ketw.h "$(DESTDIR)$(DKMS_SRC)/include/ketw.h"
	install -D -m 0644 $(TOP)/uapi/linux/ketw.h "$(DESTDIR)$(DKMS_SRC)/include/uapi/linux/ketw.h"
	install -D -m 0755 $(TOP)/scripts/dkms-symvers.sh "$(DESTDIR)$(DKMS_SRC)/dkms-symvers.sh"
	@echo "  DKMS    $(DESTDIR)$(DKMS_SRC): now dkms install ketw/$(KETW_VERSION) [-k KVER]"

stage:
	@$(WITH_KERNEL) KVER="$$KVER" KDIR="$$KDIR" $(TOP)/scripts/stage.sh $(STAGE)

# Host test of install, uninstall, DKMS and the out-of-tree sample; it
# leaves build/stage for the guest's oot_test.
install-check: module tools
	@$(WITH_KERNEL) KVER="$$KVER" KDIR="$$KDIR" $(TOP)/scripts/install-check.sh

checkpatch:
	$(TOP)/scripts/ksrc-extract.sh $(BUILD)
	@[ -n "$(CHECKPATCH_FILES)" ] || { echo "checkpatch: no files" >&2; exit 1; }
	@# MACRO_ARG_REUSE: KETW_FIELD() and KETW_PROVIDER_EVENTS() take names
	@# (a member, an array), not expressions; nothing is evaluated twice.
	perl $(BUILD)/ksrc/scripts/checkpatch.pl --strict --no-tree --show-types \
		--ignore MACRO_ARG_REUSE --quiet \
		-f $(filter-out uapi/linux/ketw.h,$(CHECKPATCH_FILES:$(TOP)/%=%))
	@# COMPLEX_MACRO: the header's KETW_*_WORDS(FN) lists expand to a
	@# list of FN() calls, like uapi/linux/bpf.h's __BPF_FUNC_MAPPER; no
	@# parentheses can enclose them.
	perl $(BUILD)/ksrc/scripts/checkpatch.pl --strict --no-tree --show-types \
		--ignore MACRO_ARG_REUSE,COMPLEX_MACRO --quiet -f uapi/linux/ketw.h
	@echo "checkpatch: $(words $(CHECKPATCH_FILES)) files clean"

clean:
	-@k=$$($(KERNEL_SH) 2>/dev/null) && eval "$$k" && [ -d "$$KDIR" ] && \
		$(MAKE) -C "$$KDIR" M=$(TOP) clean
	-[ ! -f tools/Makefile ] || $(MAKE) -C tools clean
	-[ ! -f tools/bench/Makefile ] || $(MAKE) -C tools/bench clean
	-[ ! -f tools/native/Makefile ] || $(MAKE) -C tools/native clean
	rm -f samples/out-of-tree/*.o samples/out-of-tree/*.ko samples/out-of-tree/*.mod* \
		samples/out-of-tree/.*.cmd samples/out-of-tree/modules.order \
		samples/out-of-tree/Module.symvers
	rm -rf $(BUILD)
