# rocestat — build, test, install.
#
#   make                 build ./rocestat (objects under build/); with gcc, profile-guided:
#                        PGO=0 builds without the profile (see "profile-guided build")
#   make check           build and run every test (unit, golden, differential); needs ../shared
#   make check-clone     the tests a plain clone can run (nothing from ../shared)
#   make check-live      live capture end to end in two network namespaces (root;
#                        Debian: iproute2 tcpreplay tshark)
#   make bench-capture   frames lost by rocestat and tcpdump on a top-speed replay (root)
#   make sanitize        the same test suite against an ASan+UBSan build (build-san/)
#   make tsan            the tests of the two-thread pipeline against a ThreadSanitizer
#                        build (build-tsan/); make tsan-live: check-live's against it (root)
#   make evidence        every verdict against the evidence in tshark's decode of the captures
#                        (tests/check_evidence.py; part of make check)
#   make golden          the golden tests on samples/ (any clone); T=NAME: one test alone
#   make golden-shared   the golden tests on ../shared (fails when ../shared is absent)
#   make golden-update   regenerate tests/golden/*.out from the current binary (T=NAME: one)
#   make same OLD=BIN    every output of BIN and of ./rocestat over every capture, byte
#                        for byte (BASE=REV: BIN built from git revision REV first)
#   make bench           the performance benchmark (bench/run.sh): FRAMES=10000000,
#                        BENCH_DIR= (default: a new temporary directory, removed after);
#                        REPEAT=, BENCH_NICE= and more in the environment (see bench/run.sh)
#   make fuzz            build the libFuzzer targets (clang, build-fuzz/) and run
#                        each for FUZZ_SECONDS (default 60) on seed corpora
#   make valgrind        unit tests and rocestat runs under valgrind memcheck
#   make fuzz-coverage   source coverage of the fuzz corpora (llvm-cov)
#   make check-big       10 million QPNs, then 500k CM connections, through --max-flows (memory bound)
#   make install PREFIX=/usr/local DESTDIR=
#   make deb-test        build the Debian package (debian/), install, use and purge it (root)
#
# Every flag comes from pkg-config; nothing is hard-coded to this machine.

PREFIX   ?= /usr/local
DESTDIR  ?=
PKG_CONFIG ?= pkg-config
CC       ?= cc
FUZZ_CC  ?= clang
FUZZ_SECONDS ?= 60

# Profile-guided optimisation (below) where the compiler is gcc.
PGO ?= $(shell $(CC) -v 2>&1 | grep -q '^gcc version' && echo 1)

PKGS      := libpcap glib-2.0 libmicrohttpd
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
else ifeq ($(TSAN),1)
  # ThreadSanitizer: the two threads of the offline and live loops (cli/pipeline.c).
  BUILD    ?= build-tsan
  SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
  BASE_CFLAGS += $(SANFLAGS)
  LDFLAGS  += $(SANFLAGS)
  BIN      := $(BUILD)/rocestat
else ifeq ($(FUZZ),1)
  # libFuzzer build: every object instrumented for coverage, ASan and UBSan.
  BUILD    ?= build-fuzz
  CC       := $(FUZZ_CC)
  SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  BASE_CFLAGS += $(SANFLAGS)
  LDFLAGS  += -fsanitize=fuzzer,address,undefined
  BIN      := $(BUILD)/rocestat
else ifeq ($(PGO_GEN),1)
  # The instrumented build of the profile-guided one (below). Its counters
  # are updated atomically: the training runs read in one thread and
  # analyse in another (cli/pipeline.c), and counts two threads raced on
  # made gcc refuse the profile as corrupted.
  BUILD    := build-pgo
  OBJ_CFLAGS := -fprofile-generate -fprofile-update=atomic
  # Its objects are compiled again when these flags change.
  PGO_FLAG := Makefile
  LDFLAGS  += -fprofile-generate
  BIN      := $(BUILD)/rocestat
else
  BUILD    ?= build
  BIN      := rocestat
  # Objects compiled with the profile and without it share build/: this
  # file holds the PGO setting they were compiled with, and a new one
  # (make PGO=0 after make) compiles them again.
  PGO_FLAG := $(BUILD)/pgo.flag
  $(shell mkdir -p $(BUILD) && { [ "`cat $(PGO_FLAG) 2>/dev/null`" = "PGO=$(PGO)" ] || echo "PGO=$(PGO)" > $(PGO_FLAG); })
  ifeq ($(PGO),1)
    # -dumpdir: gcc names an object's profile, and the functions of its
    # file in it, after the object's "auxiliary" name, which this makes the
    # instrumented object's (build-pgo/x/y): the counts are read where they
    # were written, and static functions are found in them.
    OBJ_CFLAGS = -fprofile-use -fprofile-partial-training -Wno-missing-profile -dumpdir build-pgo/$(dir $<)
    PGO_STAMP  := build-pgo/profile.stamp
  endif
endif

# proto/: the protocol modules, their interface (proto.h) and table (modules.c);
# proto/NAME/: one module, its files named by role (CONTRIBUTING.md).
LIB_SRC  := $(sort $(wildcard dissect/*.c analyzer/*.c analyzer/*/*.c report/*.c capture/*.c views/*.c proto/*.c proto/*/*.c))
CLI_SRC  := $(sort $(wildcard cli/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/librocestat.a

TEST_SRC := $(sort $(wildcard tests/check_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_SUPPORT := $(sort $(wildcard tests/support/*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT:%.c=$(BUILD)/%.o)

.PHONY: all check check-clone metrics expect timelinecheck plotcheck builddeps testdeps layers jsonschema width summary installcheck sliced completeness icrcrewrite sniffer dc unit unit-clone golden golden-shared difftest difftcpdump reports walkcheck verdicts evidence nvme iser nfsrdma smbdstate protodiff annotate ndjson compare cases congestion truth impair reorderdup latency udpair advert jobs threads check-vm check-live bench-capture \
	sanitize tsan tsan-live golden-update same install uninstall clean bench bench-tools \
	cli completion deb-test regress hostile interrupt fuzz fuzz-build fuzz-coverage valgrind check-big

all: $(BIN)

# V=1 shows the full command lines.
Q := $(if $(V),,@)

$(BUILD)/%.o: %.c $(PGO_STAMP) $(PGO_FLAG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(OBJ_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

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

# ---- profile-guided build ---------------------------------------------------
# With gcc (PGO defaults to 1 then), rocestat's own objects are compiled with
# -fprofile-use: a rocestat built with -fprofile-generate under build-pgo/
# is run over a generated capture and the samples (scripts/pgo-train.sh),
# and gcc lays out and inlines the hot paths (a frame's decode and
# analysis) from what it counted (what that saved: bench/NOTES.md). Any
# source newer than the profile makes a new one, and every object is
# compiled again with it. Tests and bench tools are compiled without it.
PGO_SRC := $(LIB_SRC) $(CLI_SRC) $(wildcard dissect/*.h analyzer/*.h analyzer/*/*.h report/*.h capture/*.h views/*.h cli/*.h proto/*.h proto/*/*.h) \
	bench/gen.c scripts/pgo-train.sh Makefile

build-pgo/profile.stamp: $(PGO_SRC)
	@echo "  PGO     build-pgo/rocestat, trained on a generated capture and samples/"
	$(Q)$(MAKE) --no-print-directory PGO_GEN=1 build-pgo/rocestat build-pgo/bench/gen
	$(Q)sh scripts/pgo-train.sh build-pgo
	@touch $@

# ---- tests ---------------------------------------------------------------

# The golden outputs on samples/ (first: a clone without ../shared gets that
# far green), the unit tests, the golden outputs on ../shared, then the
# differential tests against tshark (the decode) and tcpdump (-r/-w/-c/filter extraction), the
# report checks, the walkthrough against tshark, the regression cases, the
# samples against their ground truth, -j against -j 1, the fuzzers'
# regression inputs, the hostile inputs and the interrupted runs, and the
# two-thread pipeline against one thread. Each script exits non-zero on the
# first failing case it reports.
check: builddeps testdeps layers golden unit golden-shared jsonschema width summary difftest difftcpdump reports sliced completeness impair reorderdup latency udpair advert icrcrewrite sniffer dc walkcheck verdicts evidence nvme iser nfsrdma smbdstate protodiff annotate ndjson compare cases congestion cli completion installcheck truth jobs threads regress hostile interrupt metrics expect timelinecheck plotcheck

# The part of make check a plain clone can run: the tests that need
# nothing outside this repository (samples/ and what they generate). The
# rest of make check compares against the data set in ../shared and says
# so, failing, where it is absent; the unit tests do too (some of their
# cases read ../shared). This is not CI's suite: make check is.
check-clone: builddeps testdeps layers unit-clone golden cases smbdstate truth nfsrdma installcheck regress hostile interrupt metrics expect

# Every system header that `make` compiles in comes from a package that
# `scripts/deps.sh build` installs (the README's quick start). The sources
# are the product's and the generator that trains the profile-guided build.
BUILD_SRC := $(LIB_SRC) $(CLI_SRC) bench/gen.c
builddeps:
	CC="$(CC)" CPPFLAGS="$(CPPFLAGS)" PKG_CFLAGS="$(PKG_CFLAGS)" SOURCES="$(BUILD_SRC)" \
	  python3 tests/check_build_deps.py

# Every program a test runs comes from `deps.sh test` (or is Essential).
testdeps:
	python3 tests/check_test_deps.py

# The Check unit tests. unit-clone leaves out the cases tagged "shared"
# (rt_shared_tcase), which read ../shared; `make unit` runs them and fails
# when ../shared is absent.
unit: $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; CK_FORK=yes $$t; done

unit-clone: $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; CK_FORK=yes CK_EXCLUDE_TAGS=shared $$t; done

# The golden tests (tests/golden.sh): those on samples/ (tests/TESTLIST),
# which any clone runs; T=NAME runs the test NAME alone, from either list
# (T="A B": several). golden-shared: those on ../shared (tests/TESTLIST.shared),
# failing, never passing, when ../shared is absent.
T ?=
golden: $(BIN)
	ROCESTAT=$(abspath $(BIN)) sh tests/golden.sh $(T)

golden-shared: $(BIN)
	ROCESTAT=$(abspath $(BIN)) sh tests/golden.sh --shared

# Every JSON document against the schema rocestat ships (man/rocestat.schema.json).
jsonschema: $(BIN) $(BUILD)/bench/gen
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_json_schema.py
	ROCESTAT=$(abspath $(BIN)) BENCH_GEN=$(abspath $(BUILD)/bench/gen) python3 tests/check_man.py

# The text summary fits 80, 120 and 200 columns (and a terminal's own width).
width: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_width.py

# The summary of a production capture fits a screen (--brief: 80x24) and
# its groups and folds lose nothing: their counts rebuilt from the JSON.
summary: $(BIN) $(BUILD)/bench/gen
	ROCESTAT=$(abspath $(BIN)) BENCH_GEN=$(abspath $(BUILD)/bench/gen) python3 tests/check_summary.py

# The tree's shape: rooms include one way, calls within analyzer/,
# report/, views/ and cli/ go one way (in analyzer/, down its sub-rooms),
# no file over 800 lines nor function over 120.
layers:
	python3 tests/check_layers.py

difftest: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/diff_tshark.py

difftcpdump: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/diff_tcpdump.py

reports: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_reports.py

# Frames the capture cut short (hardware sniffers), against tshark's lengths
# and against the same captures uncut.
sliced: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_sliced.py

completeness: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_completeness.py

icrcrewrite: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_icrc_rewrite.py

# NVIDIA DC named, counted per QP and never read as RD, against the bytes and tshark.
dc: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_dc.py

# The capture section's sniffer traits (MACs, one direction), against tshark.
sniffer: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_sniffer.py

walkcheck: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/walk_check.py

# proto/'s decoders (iSER, RPC-over-RDMA, SMB Direct) against tshark on every
# frame of the storage samples (tests/protodump.c prints what they read).
PROTODUMP := $(BUILD)/tests/protodump
$(PROTODUMP): $(BUILD)/tests/protodump.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS) -lm
protodiff: $(PROTODUMP)
	PROTODUMP=$(abspath $(PROTODUMP)) python3 tests/check_proto_tshark.py

# SMB Direct connections (proto/smbdirect/smbd_state.c) against the
# generator's truth (samples/smbd_gen*.requests.json) and tshark's smb2 decode;
# the same samples with their CM frames cut (recognition by shape); SMB2
# compounds (samples/smbd_gen_compound.pcap) against tshark's smb2 headers.
smbdstate: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_smbd_state.py
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_smbd_shape.py
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_smbd_compound.py

# NVMe-oF capsules, queues and --ulp against tshark's nvme-rdma decode and
# samples/rxe_nvme.truth.txt; the same captures with their CM frames cut
# (recognition by shape, --ulp qp:) against tshark's decode of the originals.
nvme: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_nvme.py
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_nvme_shape.py
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_module_fold.py

# iSER tasks (command -> response pairs, latency, data, failures, the
# fabric's re-sends) against tshark's iscsi/iser decode and the samples'
# truth files.
iser: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_iser_tasks.py
# NFS/RDMA calls, replies, chunks and re-sends against tshark's rpcordma,
# rpc and nfs fields and the samples' mountstats (samples/rxe_nfs*).
nfsrdma: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_nfsrdma.py
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_nfsrdma_shape.py

# --fields --verdicts against what tshark's decode and the IBA rules give.
verdicts: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_fields_verdicts.py

# Every verdict (copies, re-sends and their causes, late packets, skipped PSNs,
# retry exhaustion, DSCP, one-way captures, DREQ/DREP) against the evidence in
# tshark's decode of the capture.
evidence: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_evidence.py

# --format prometheus/openmetrics and -i --metrics: promtool, the OpenMetrics
# parser, tshark, and a real Prometheus scraping a live capture (needs root).
metrics: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_metrics.py

# --expect, --expect-junit and --expect-names against tshark's decode, an XML
# parser, the JSON schema and the man page.
expect: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_expect.py

# --annotate: the comments against tshark's decode, the frames against the input.
annotate: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_annotate.py

# --format ndjson: every line against the schema, the JSON document's objects, jq -s, sqlite3.
ndjson: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_ndjson.py

# --compare: B derived from A (editcap drops and shifts, known per-frame delays).
compare: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_compare.py

cases: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_cases.py

# DSCP, ECN, CNPs and PAUSE/PFC against the generator's truth and tshark.
congestion: $(BIN) $(BUILD)/bench/gen
	ROCESTAT=$(abspath $(BIN)) BENCH_GEN=$(abspath $(BUILD)/bench/gen) python3 tests/check_congestion.py

# The --timeline CSV against tshark: time order, rows with traffic (and
# --timeline-fill's zero rows), per-interval latencies.
timelinecheck: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_timeline.py

# --plot against tshark: --bits, the time axis's unit, CM markers, the total line.
plotcheck: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_plot.py

# Option combinations: done as the man page says, or refused with a reason.
cli: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_cli.py

# make install into a temporary PREFIX; the installed binary and man page used.
installcheck: $(BIN)
	BIN=$(abspath $(BIN)) MAKE="$(MAKE)" sh tests/installcheck.sh

# The bash completion against --help: every option, and each value-taking
# one completed as such; --format's and --color's values.
completion: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_completion.py

# The Debian package: built from a copy of the working tree in a temporary
# directory, installed with apt-get, used, purged (root; tests/check_deb.sh).
deb-test:
	sh tests/check_deb.sh

# The committed samples against the generator's ground truth: every frame,
# then the analyzer's report.
truth: $(BIN)
	python3 tests/samples_truth.py --mode fields --rocestat $(abspath $(BIN))
	python3 tests/samples_truth.py --mode json --rocestat $(abspath $(BIN))

# The impaired samples (samples/impair/: netem reorder, duplicate, loss,
# corrupt; RNR; a dead responder; replays) against their ground truth and
# RXE counters.
impair: $(BIN)
	python3 tests/check_impair.py --rocestat $(abspath $(BIN))

# Network copies and reordering made on purpose from the real captures:
# what the script did is what rocestat must say (tests/check_reorder_dup.py).
reorderdup: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_reorder_dup.py

# AckReq -> ACK latency against tshark's frames, paired by IBA 9.7.5: on the
# hardware captures whose sniffer wrote ACKs before their requests or dropped
# packets, and on every clean capture (tests/check_latency.py).
latency: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_latency.py

# UD conversations and their replies paired by order, against tshark's fields
# and the ping-pong captures' construction (tests/check_udpair.py).
udpair: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_udpair.py

# The walkthrough's buffer advertisements (rping's rping_rdma_info) tied to
# the READs and WRITEs that use them, against tshark's payload and RETH
# fields, and on captures made with the ties broken (tests/check_advert.py).
advert: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_advert.py

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

# The pipeline (-j 2) against one thread (-j 1), byte for byte, on every
# capture and on inputs that take the paths where timing could show.
threads: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/check_threads.py

sanitize:
	$(MAKE) SAN=1 check

# The tests that run the offline loop in two threads (the default on two or
# more CPUs), against a ThreadSanitizer build in build-tsan/: any data race
# between the reading thread and the analysing one fails the run
# (halt_on_error). A few minutes.
TSAN_OPTIONS ?= halt_on_error=1 second_deadlock_stack=1
tsan:
	$(MAKE) TSAN=1 build-tsan/rocestat
	TSAN_OPTIONS="$(TSAN_OPTIONS)" $(MAKE) TSAN=1 threads jobs golden golden-shared interrupt

# The live capture's two threads (cli/livefeed.c through cli/pipeline.c),
# and the --metrics server's, under ThreadSanitizer: tests/live_netns.sh and
# tests/check_metrics.py against build-tsan/rocestat.
# Root, as check-live. A report fails the run: written to files (the
# capture's stderr is the test's to read), then printed.
TSAN_LIVE_LOGS := $(abspath build-tsan)/live-tsan
tsan-live:
	$(MAKE) TSAN=1 build-tsan/rocestat
	rm -rf $(TSAN_LIVE_LOGS) && mkdir -m 1777 -p $(TSAN_LIVE_LOGS)
	TSAN_OPTIONS="$(TSAN_OPTIONS) log_path=$(TSAN_LIVE_LOGS)/report" ROCESTAT=$(abspath build-tsan/rocestat) \
	    CAPTURES=$(CAPTURES) bash tests/live_netns.sh
	TSAN_OPTIONS="$(TSAN_OPTIONS) log_path=$(TSAN_LIVE_LOGS)/report" ROCESTAT=$(abspath build-tsan/rocestat) \
	    python3 tests/check_metrics.py
	@if ls $(TSAN_LIVE_LOGS)/report* >/dev/null 2>&1; then cat $(TSAN_LIVE_LOGS)/report*; \
	    echo "tsan-live: ThreadSanitizer reports above"; exit 1; fi

# Rewrites the expected outputs of both lists, or of the test T=NAME alone.
golden-update: $(BIN)
	@if [ -n "$(T)" ]; then ROCESTAT=$(abspath $(BIN)) sh tests/golden.sh --update $(T); \
	else ROCESTAT=$(abspath $(BIN)) sh tests/golden.sh --update && \
	     ROCESTAT=$(abspath $(BIN)) sh tests/golden.sh --update --shared; fi

# A change that must not change behaviour: OLD (a rocestat built before it)
# and this tree's, every output mode over every capture in samples/ and
# ../shared/, byte for byte (tests/same_output.py). BASE=REV builds OLD from
# a git revision in a temporary worktree first: make same BASE=main.
OLD  ?=
BASE ?=
same: $(BIN)
	@if [ -n "$(BASE)" ]; then python3 tests/same_output.py --base "$(BASE)" $(abspath $(BIN)); \
	elif [ -n "$(OLD)" ]; then python3 tests/same_output.py "$(OLD)" $(abspath $(BIN)); \
	else echo "make same: say OLD=path/to/old/rocestat or BASE=git-revision"; exit 2; fi

# ---- benchmark -----------------------------------------------------------

# Bench tools: not part of rocestat; the generator, the bare libpcap loop and
# the mapped walk over every byte (touch) it is measured against, and a
# getrusage wrapper.
FRAMES    ?= 10000000
BENCH_DIR ?=
BENCH_BIN := $(BUILD)/bench
BENCH_TOOLS := $(BENCH_BIN)/gen $(BENCH_BIN)/pcaploop $(BENCH_BIN)/touch $(BENCH_BIN)/rusage

$(BENCH_BIN)/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(PKG_LIBS)

bench-tools: $(BENCH_TOOLS)

bench: $(BIN) $(BENCH_TOOLS)
	ROCESTAT=$(abspath $(BIN)) BENCH_BIN=$(abspath $(BENCH_BIN)) sh bench/run.sh $(FRAMES) $(BENCH_DIR)

# ---- robustness: fuzzing, regressions, hostile inputs, valgrind -----------

FUZZ_TARGETS := fuzz_frame fuzz_capture fuzz_cm
# The CLI's objects but main(): the fuzz and replay drivers bring their own.
CLI_LIB  := $(BUILD)/librocestat-cli.a
FUZZ_BINS := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
# The same targets with a plain main() that replays files (no libFuzzer), so
# the regression inputs run in every build: plain, sanitizer and valgrind.
REPLAY_BINS := $(FUZZ_TARGETS:fuzz_%=$(BUILD)/tests/replay_%)

$(CLI_LIB): $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(CLI_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CLI_LIB) $(LIB) $(PKG_LIBS) -lm

$(BUILD)/tests/replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/regress/replay_main.o $(CLI_LIB) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

.PRECIOUS: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/regress/%.o

fuzz-build: $(FUZZ_BINS)

# Each target for FUZZ_SECONDS on a corpus seeded from the captures.
fuzz:
	$(MAKE) FUZZ=1 fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZ_TARGETS)

# Source coverage of the fuzz corpora (build-fuzz/corpus, after make fuzz):
# the replay drivers built with clang's coverage instrumentation in build-cov/.
fuzz-coverage:
	$(MAKE) BUILD=build-cov CC=$(FUZZ_CC) CFLAGS="-fprofile-instr-generate -fcoverage-mapping" \
	  LDFLAGS="-fprofile-instr-generate" $(FUZZ_TARGETS:fuzz_%=build-cov/tests/replay_%)
	@set -e; for t in $(FUZZ_TARGETS); do n=$${t#fuzz_}; \
	  LLVM_PROFILE_FILE=build-cov/$$n.profraw build-cov/tests/replay_$$n build-fuzz/corpus/$$t >/dev/null 2>&1; \
	  llvm-profdata merge -o build-cov/$$n.profdata build-cov/$$n.profraw; \
	  echo "== $$t"; llvm-cov report build-cov/tests/replay_$$n -instr-profile=build-cov/$$n.profdata \
	    dissect/*.c analyzer/*.c analyzer/*/*.c report/*.c capture/*.c views/*.c cli/*.c | awk '$$1 != "" && $$NF != "-" {print $$1, "regions", $$4, "lines", $$10}' | tail -40; done

# Every crash the fuzzers found, and the committed minimized corpora,
# replayed through the same entry points.
regress: $(REPLAY_BINS)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  n=$${t#fuzz_}; $(BUILD)/tests/replay_$$n tests/regress/$$t tests/fuzz/seeds/$$t; done

hostile: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/hostile/run.py
	ROCESTAT=$(abspath $(BIN)) python3 tests/hostile/outputs.py
	ROCESTAT=$(abspath $(BIN)) python3 tests/hostile/time2038.py
	ROCESTAT=$(abspath $(BIN)) python3 tests/hostile/sections.py

interrupt: $(BIN)
	ROCESTAT=$(abspath $(BIN)) python3 tests/hostile/interrupt.py

# memcheck over the unit tests, the replayed regressions and rocestat runs.
valgrind: $(TEST_BIN) $(REPLAY_BINS) $(BIN)
	ROCESTAT=$(abspath $(BIN)) BUILD=$(BUILD) TEST_BINS="$(TEST_BIN)" REPLAY_BINS="$(REPLAY_BINS)" \
	  python3 tests/valgrind.py

check-big: $(BIN) $(BENCH_BIN)/gen
	ROCESTAT=$(abspath $(BIN)) BENCH_GEN=$(abspath $(BENCH_BIN)/gen) python3 tests/hostile/bigflows.py

# ---- install -------------------------------------------------------------

# The man page names the schema where this PREFIX puts it. The completion
# goes where bash-completion's loader looks (under /usr/local too).
install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/rocestat \
	           $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/rocestat
	sed 's|/usr/local/share/rocestat/|$(PREFIX)/share/rocestat/|g' man/rocestat.1 > $(DESTDIR)$(PREFIX)/share/man/man1/rocestat.1
	chmod 0644 $(DESTDIR)$(PREFIX)/share/man/man1/rocestat.1
	install -m 0644 man/rocestat.schema.json $(DESTDIR)$(PREFIX)/share/rocestat/rocestat.schema.json
	install -m 0644 completion/rocestat $(DESTDIR)$(PREFIX)/share/bash-completion/completions/rocestat

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/rocestat $(DESTDIR)$(PREFIX)/share/man/man1/rocestat.1 \
	      $(DESTDIR)$(PREFIX)/share/rocestat/rocestat.schema.json \
	      $(DESTDIR)$(PREFIX)/share/bash-completion/completions/rocestat

clean:
	rm -rf build build-san build-tsan build-fuzz build-cov build-pgo rocestat

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
