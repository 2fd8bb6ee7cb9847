# tests/fuzz/fuzz.mk -- the fuzz targets (tests/fuzz/README.md), included
# by the Makefile.  tests/fuzz/fuzz_NAME.c is one target:
#  - in every build, linked with fuzz_replay.c into $(BUILD)/tests/fuzz/
#    replay_NAME, which scripts/run-tests.sh runs on corpus/NAME and
#    regress/NAME (so make check and make asan replay them with gcc);
#  - under `make fuzz`, built by clang with -fsanitize=fuzzer,address,
#    undefined into build-fuzz/ and run FUZZ_SECONDS seconds each
#    (FUZZ_TARGET=NAME: that one only; FUZZ_FLAGS: more libFuzzer flags).

FUZZ_SRC := $(filter-out tests/fuzz/fuzz_replay.c,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))
FUZZ_REPLAYS := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/replay_%)
FUZZ_BINS := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/fuzz_%)
FUZZ_SECONDS ?= 60
FUZZ_TARGET ?= $(FUZZ_NAMES)
FUZZ_FLAGS ?=

.PHONY: fuzz fuzz-bins
tests: $(FUZZ_REPLAYS)

$(FUZZ_REPLAYS): $(BUILD)/tests/fuzz/replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/fuzz_replay.o $(LIB)
	$(CC) $(SBW_LDFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# libFuzzer's own main; the library is instrumented with fuzzer-no-link
# (SBW_FUZZ=1 below), so coverage reaches the parsers.
$(FUZZ_BINS): $(BUILD)/tests/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIB)
	$(CC) $(SBW_LDFLAGS) -fsanitize=fuzzer $(LDFLAGS) $^ $(LDLIBS) -o $@

ifneq ($(SBW_FUZZ),)
SBW_CFLAGS += -fsanitize=fuzzer-no-link -Wno-pass-failed
endif

fuzz-bins: $(FUZZ_BINS)

# make lint, format and format-check read the targets too.
LINT_C += $(FUZZ_SRC) tests/fuzz/fuzz_replay.c
ALL_C += $(FUZZ_SRC) tests/fuzz/fuzz_replay.c
ALL_H += tests/fuzz/fuzz_util.h

fuzz:
	@scripts/deps.sh --fuzz
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang SAN=1 SBW_FUZZ=1 fuzz-bins
	@for t in $(FUZZ_TARGET); do \
	  echo "== fuzz $$t ($(FUZZ_SECONDS) s)"; \
	  mkdir -p build-fuzz/corpus/$$t; \
	  nice -n 10 build-fuzz/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
	    -close_fd_mask=3 -artifact_prefix=build-fuzz/crash-$$t- $(FUZZ_FLAGS) \
	    build-fuzz/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

-include $(FUZZ_SRC:%.c=$(BUILD)/%.d) $(BUILD)/tests/fuzz/fuzz_replay.d
