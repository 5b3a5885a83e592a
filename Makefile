# rocestat — build, test, install.
#
#   make                 build ./rocestat (objects under build/)
#   make check           build and run every test (unit, golden, differential)
#   make check-live      live capture end to end in two network namespaces (root;
#                        Debian: iproute2 tcpreplay tshark)
#   make bench-capture   frames lost by rocestat and tcpdump on a top-speed replay (root)
#   make sanitize        the same test suite against an ASan+UBSan build (build-san/)
#   make golden-update   regenerate tests/golden/*.out from the current binary
#   make bench           the performance benchmark (bench/run.sh): FRAMES=10000000,
#                        BENCH_DIR= (default: a new temporary directory, removed after);
#                        REPEAT=, BENCH_NICE= and more in the environment (see bench/run.sh)
#   make install PREFIX=/usr/local DESTDIR=
#
# Every flag comes from pkg-config; nothing is hard-coded to this machine.

PREFIX   ?= /usr/local
DESTDIR  ?=
PKG_CONFIG ?= pkg-config
CC       ?= cc

PKGS      := libpcap glib-2.0
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS))
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wformat=2 -Wno-format-nonliteral
OPT      ?= -O2 -g
CFLAGS   ?=
VERSION  := 0.1.0
CPPFLAGS += -D_DEFAULT_SOURCE -I. -DROCESTAT_VERSION='"$(VERSION)"'
BASE_CFLAGS := -std=c11 $(WARN) $(OPT) $(PKG_CFLAGS)

# SAN=1 selects the sanitizer build in its own object tree so both can coexist.
ifeq ($(SAN),1)
  BUILD    ?= build-san
  SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  BASE_CFLAGS += $(SANFLAGS)
  LDFLAGS  += $(SANFLAGS)
  BIN      := $(BUILD)/rocestat
else
  BUILD    ?= build
  BIN      := rocestat
endif

LIB_SRC  := $(sort $(wildcard dissect/*.c analyzer/*.c capture/*.c))
CLI_SRC  := $(sort $(wildcard cli/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/librocestat.a

TEST_SRC := $(sort $(wildcard tests/check_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_SUPPORT := $(sort $(wildcard tests/support/*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT:%.c=$(BUILD)/%.o)

.PHONY: all check unit golden difftest reports walkcheck cases truth jobs check-vm check-live bench-capture \
	sanitize golden-update install uninstall clean bench bench-tools

all: $(BIN)

# V=1 shows the full command lines.
Q := $(if $(V),,@)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(PKG_LIBS) -lm

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(CHECK_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Keep the test objects: they are intermediate to make, but rebuilding every
# test on every `make unit` wastes time.
.SECONDARY: $(TEST_BIN:%=%.o)

$(BUILD)/tests/check_%: $(BUILD)/tests/check_%.o $(TEST_SUPPORT_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_SUPPORT_OBJ) $(LIB) $(PKG_LIBS) $(CHECK_LIBS) -lm

# ---- tests ---------------------------------------------------------------

# The unit tests, then the golden outputs, then the differential test against
# tshark, the report checks, the walkthrough against tshark, the regression
# cases, the samples against their ground truth and -j against -j 1. Each
# script exits non-zero on the first failing case it reports.
check: unit golden difftest reports walkcheck cases truth jobs

unit: $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; CK_FORK=yes $$t; done

golden: $(BIN)
	ROCESTAT=$(abspath $(BIN)) sh tests/golden.sh

difftest: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/diff_tshark.py

reports: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_reports.py

walkcheck: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/walk_check.py

cases: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_cases.py

# The committed samples against the generator's ground truth: every frame,
# then the analyzer's report.
truth: $(BIN)
	python3 tests/samples_truth.py --mode fields --rocestat $(abspath $(BIN))
	python3 tests/samples_truth.py --mode json --rocestat $(abspath $(BIN))

# Root: boots two QEMU guests with rdma_rxe, generates, captures, compares.
check-vm: $(BIN)
	bash tests/vm_e2e.sh

# Needs root: it creates network namespaces. Fails (never skips) without.
CAPTURES ?= $(abspath ../shared/captures)
check-live: $(BIN)
	ROCESTAT=$(abspath $(BIN)) CAPTURES=$(CAPTURES) bash tests/live_netns.sh

bench-capture: $(BIN)
	ROCESTAT=$(abspath $(BIN)) CAPTURES=$(CAPTURES) bash bench/capture_drops.sh

# -j N against -j 1 on several captures given as multiple files.
jobs: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_jobs.py

sanitize:
	$(MAKE) SAN=1 check

golden-update: $(BIN)
	ROCESTAT=$(abspath $(BIN)) sh tests/golden.sh --update

# ---- benchmark -----------------------------------------------------------

# Bench tools: not part of rocestat; the generator and the bare libpcap loop
# it is measured against, and a getrusage wrapper.
FRAMES    ?= 10000000
BENCH_DIR ?=
BENCH_BIN := $(BUILD)/bench
BENCH_TOOLS := $(BENCH_BIN)/gen $(BENCH_BIN)/pcaploop $(BENCH_BIN)/rusage

$(BENCH_BIN)/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(PKG_LIBS)

bench-tools: $(BENCH_TOOLS)

bench: $(BIN) $(BENCH_TOOLS)
	ROCESTAT=$(abspath $(BIN)) BENCH_BIN=$(abspath $(BENCH_BIN)) sh bench/run.sh $(FRAMES) $(BENCH_DIR)

# ---- install -------------------------------------------------------------

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/rocestat
	install -m 0644 man/rocestat.1 $(DESTDIR)$(PREFIX)/share/man/man1/rocestat.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/rocestat $(DESTDIR)$(PREFIX)/share/man/man1/rocestat.1

clean:
	rm -rf build build-san rocestat

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- samples: the RXE traffic generator and the committed captures -------
# See samples/README.md. rocegen needs libibverbs and librdmacm; `make samples`
# boots two QEMU guests per sample and needs root (it apt-gets what is missing).
ROCEGEN_SRC  := $(sort $(wildcard samples/rocegen/*.c))
ROCEGEN_HDR  := $(wildcard samples/rocegen/*.h)
ROCEGEN_PKGS := libibverbs librdmacm

samples/rocegen/rocegen: $(ROCEGEN_SRC) $(ROCEGEN_HDR)
	$(CC) $(CPPFLAGS) -std=c11 $(WARN) $(OPT) $(shell $(PKG_CONFIG) --cflags $(ROCEGEN_PKGS)) \
	    $(CFLAGS) $(LDFLAGS) -o $@ $(ROCEGEN_SRC) $(shell $(PKG_CONFIG) --libs $(ROCEGEN_PKGS))

.PHONY: rocegen samples
rocegen: samples/rocegen/rocegen

samples: $(BIN) samples/rocegen/rocegen
	samples/make-samples.sh
