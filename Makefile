# sbw -- Softmax Bottleneck Workbench.  Plain GNU make; `make help` lists
# the targets.  Tools are <folder>/tool_VERB.c -> bin/sbw-VERB for every
# folder in SRCDIRS;
# every other .c there goes into libsbw.a; tests/test_*.c are cmocka suites.
# Adding a tool, a module or a test means adding a file: nothing here changes.

BUILD ?= build
BIN ?= bin
PREFIX ?= /usr/local
SAN ?=
WERROR ?=

# The library's folders, foundation first (docs/DESIGN.md: the dependency
# rule, which `make lint` enforces with scripts/check-deps.sh).
SRCDIRS := core synth analysis models lm verify plots
# The user's CFLAGS, CPPFLAGS and LDFLAGS (environment or `make CFLAGS=-O0`)
# choose optimisation, debug info and extra paths only; what the build
# needs (C11, OpenMP, warnings, dependency files, include paths,
# sanitizers) is in the SBW_* variables, which a command line does not
# replace.  Order: SBW_CFLAGS, then CFLAGS (so -O/-g/-W... there win), then
# the kernels' flags.
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wconversion
SBW_CPPFLAGS := -D_POSIX_C_SOURCE=200809L $(addprefix -I,$(SRCDIRS)) -Itests
SBW_CFLAGS = -std=c11 $(WARN) $(WERROR) -fopenmp -MMD -MP
SBW_LDFLAGS := -fopenmp
# Hot numerical kernels (*_kern.c): vectorised exp/log through libmvec needs
# -ffast-math; it is confined to these files, which never test for NaN/Inf.
KERN_CFLAGS := -O3 -march=native -ffast-math
SBW_KERN_CFLAGS :=
LDLIBS := -lgsl -lglpk -lgmp -llapacke -lopenblas -ldnnl -ljansson -lm
ifneq ($(SAN),)
SBW_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SBW_LDFLAGS += -fsanitize=address,undefined
endif

TOOL_SRC := $(wildcard $(addsuffix /tool_*.c,$(SRCDIRS)))
LIB_SRC := $(filter-out $(TOOL_SRC),$(wildcard $(addsuffix /*.c,$(SRCDIRS))))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libsbw.a
tool_name = $(BIN)/sbw-$(patsubst tool_%,%,$(basename $(notdir $(1))))
TOOLS := $(foreach t,$(TOOL_SRC),$(call tool_name,$(t)))
TEST_SRC := $(wildcard tests/test_*.c)
TESTS := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_HELPER := $(BUILD)/tests/sbw_test.o

.PHONY: all tests check check-run asan bench bench-smoke demo ptb ptb-quick install clean lint format format-check deps help
.DEFAULT_GOAL := all
.SECONDARY:

all: $(TOOLS)

help:
	@echo "make            build the tools into $(BIN)/"
	@echo "make check      install missing dependencies, build, run every test"
	@echo "make demo       install missing dependencies, run experiments/quickstart.sh"
	@echo "make ptb        MoS Tables 6/7/11 on Penn Treebank (hours; resumable)"
	@echo "make ptb-quick  the same pipeline at toy scale (seconds)"
	@echo "make readme-figures  make demo, then copy its README figure to docs/figures/"
	@echo "make bench      timings against NumPy/SciPy/PyTorch references (installs them); exit 1 if a bench fails"
	@echo "make bench-smoke  every bench at tiny sizes (about a minute; .ci/run runs it)"
	@echo "make asan       the whole test suite under AddressSanitizer + UBSan"
	@echo "make fuzz       libFuzzer on every parser, FUZZ_SECONDS=60 each (FUZZ_TARGET=npy: one)"
	@echo "make lint       dependency rule, one prefix per file, failure contracts, no numeric routine in plots/, cppcheck and clang-tidy (sources and tests)"
	@echo "make format     clang-format the sources in place"
	@echo "make format-check  fail if clang-format would change a source"
	@echo "make install PREFIX=/usr/local [DESTDIR=...]  tools, libsbw.so/.a, headers, sbw.pc, man pages, completion, the Python module"
	@echo "make uninstall  remove what make install put there (same PREFIX, DESTDIR)"
	@echo "make deb        a Debian package of the same (dpkg-deb; checked by lintian when installed)"

$(BUILD)/%_kern.o: SBW_KERN_CFLAGS = $(KERN_CFLAGS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(SBW_CPPFLAGS) $(CPPFLAGS) $(SBW_CFLAGS) $(CFLAGS) $(SBW_KERN_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

define tool_rule
$(call tool_name,$(1)): $(BUILD)/$(1:.c=.o) $(LIB)
	@mkdir -p $$(@D)
	$$(CC) $$(SBW_LDFLAGS) $$(LDFLAGS) $$^ $$(LDLIBS) -o $$@
endef
$(foreach t,$(TOOL_SRC),$(eval $(call tool_rule,$(t))))

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_HELPER) $(LIB)
	$(CC) $(SBW_LDFLAGS) -pthread $(LDFLAGS) $^ -lcmocka $(LDLIBS) -o $@

# test_argmax runs on a malloc whose malloc(0) returns NULL, as some C
# libraries' does (tests/malloc0_null.c): a size-0 request mistaken for a
# lack of memory fails it, which glibc alone would hide.
$(BUILD)/tests/test_argmax: $(BUILD)/tests/malloc0_null.o
$(BUILD)/tests/test_argmax: LDFLAGS += -Wl,--wrap=malloc

tests: $(TESTS) $(TOOLS)

deps:
	@scripts/deps.sh

check: deps
	@$(MAKE) --no-print-directory WERROR=-Werror check-run

check-run: tests
	@scripts/run-tests.sh $(BUILD)/tests $(BIN)

asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/bin SAN=1 WERROR=-Werror check-run

# make bench: every bench/bench_*.sh (bench/run.sh); exit 1 if a bench
# failed or printed no figure (missed speed targets are listed, not failed;
# BENCH_STRICT=1 fails them too).  bench-smoke: the same scripts at tiny
# sizes (BENCH_QUICK=1), with NumPy and SciPy but not PyTorch installed by
# default (scripts/deps.sh --bench-smoke; the torch lines are then skipped).
bench:
	@scripts/deps.sh --bench
	@$(MAKE) --no-print-directory all
	@SBW_BIN=$(BIN) BUILD=$(BUILD) bench/run.sh

bench-smoke:
	@scripts/deps.sh --bench-smoke
	@$(MAKE) --no-print-directory all
	@SBW_BIN=$(BIN) BUILD=$(BUILD) BENCH_QUICK=1 BENCH_OUT=$${BENCH_OUT:-out/bench-smoke} bench/run.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@experiments/quickstart.sh

# MoS Tables 6, 7, 11 on Penn Treebank (issue 15): hours, resumable
# (experiments/ptb/run.sh); ptb-quick is the same pipeline at toy scale.
ptb: all
	@experiments/ptb/run.sh

ptb-quick: all
	@experiments/ptb/run.sh --quick
# The quickstart figure the README shows (a small PNG, committed): the
# topic language's fits against the Softmax bound.
.PHONY: readme-figures
readme-figures: demo
	@mkdir -p docs/figures
	cp out/quickstart/bound.png docs/figures/quickstart-bound.png

# ---- install, uninstall, man pages, completion, make deb (issue 30) ----
# What `make install` ships (docs/DESIGN.md, "Installing"): the tools
# (linked with the static library, as `make` builds them), libsbw.a and
# libsbw.so.$(SO_VERSION) (soname libsbw.so.$(SO_MAJOR)), both without the
# naive twins (*_ref: test oracles that production never calls), the public
# headers under include/sbw/, sbw.pc, a man page per tool and sbw(7), bash
# completion per tool.  Public headers: every header of a source folder but
# the twins' (*_ref.h), the templates a .c includes to instantiate code
# (*_tmpl.h and their vocabulary sbw_prec.h) and the kernels' (*_kern.h,
# sbw_vexp.h: compiled with -ffast-math for finite data, called by their
# modules).  The .so is built from -fPIC objects of their own
# ($(BUILD)/pic/); the tools and tests keep the objects they always had.
# Man pages and completion are generated from the built tools' --help
# (scripts/helpdoc.sh).  tests/cli/test_install.sh, test_man.sh and
# test_deb.sh check all of it.
VERSION := $(shell sed -n 's/^\#define SBW_CLI_VERSION "\(.*\)"$$/\1/p' core/sbw_cli.h)
SO_VERSION := 0.1.0
SO_MAJOR := $(firstword $(subst ., ,$(SO_VERSION)))
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# The Python binding (python/sbw, docs/python.md): pure Python over
# libsbw.so.0, so it goes where Debian puts modules that serve every
# python3 version, PREFIX/lib/python3/dist-packages (no 3.X in the path:
# the .deb's /usr/lib/python3/dist-packages, on Debian's python3 path);
# the module finds the library from there (PREFIX/lib, or PREFIX/lib/
# MULTIARCH as the package has it).  For PREFIX=/usr/local, python3 reads
# /usr/local/lib/python3.X/dist-packages instead: give that as PYTHONDIR,
# or set PYTHONPATH.
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
PY_SRC := $(wildcard python/sbw/*.py)
NOT_PUBLIC_H := %_ref.h %_tmpl.h core/sbw_prec.h %_kern.h core/sbw_vexp.h
PUBLIC_H := $(filter-out $(NOT_PUBLIC_H),$(wildcard $(addsuffix /*.h,$(SRCDIRS))))
INSTALL_OBJ := $(filter-out %_ref.o,$(LIB_OBJ))
INSTALL_LIB := $(BUILD)/install/libsbw.a
PIC_OBJ := $(INSTALL_OBJ:$(BUILD)/%=$(BUILD)/pic/%)
SHLIB := $(BUILD)/install/libsbw.so.$(SO_VERSION)
SHLIB_LINKS := $(BUILD)/install/libsbw.so.$(SO_MAJOR) $(BUILD)/install/libsbw.so
TOOL_NAMES := $(notdir $(TOOLS))
MAN1 := $(TOOL_NAMES:%=$(BUILD)/man/%.1)
MAN7 := $(BUILD)/man/sbw.7
COMPLETIONS := $(TOOL_NAMES:%=$(BUILD)/completion/%)
# -z defs: every symbol the library uses comes from a library it names
# (not with sanitizers, whose runtime the executable brings).
SHLIB_LDFLAGS := -shared -Wl,-soname,libsbw.so.$(SO_MAJOR) $(if $(SAN),,-Wl,-z,defs)

.PHONY: shared man completion uninstall deb
shared: $(SHLIB) $(SHLIB_LINKS)
man: $(MAN1) $(MAN7)
completion: $(COMPLETIONS)
# make check builds them with the tests, so the install tests only copy.
ifeq ($(SAN),)
tests: shared man completion $(INSTALL_LIB)
endif

$(INSTALL_LIB): $(INSTALL_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(SBW_CPPFLAGS) $(CPPFLAGS) $(SBW_CFLAGS) $(CFLAGS) $(SBW_KERN_CFLAGS) -fPIC -c $< -o $@

$(SHLIB): $(PIC_OBJ)
	@mkdir -p $(@D)
	$(CC) $(SHLIB_LDFLAGS) $(SBW_LDFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(SHLIB_LINKS): $(SHLIB)
	ln -sf $(if $(filter %.so,$@),libsbw.so.$(SO_MAJOR),$(notdir $<)) $@

$(BUILD)/man/%.1: $(BIN)/% scripts/helpdoc.sh
	@mkdir -p $(@D)
	scripts/helpdoc.sh man $< >$@.tmp && mv $@.tmp $@

$(MAN7): $(TOOLS) docs/sbw.7.in scripts/helpdoc.sh
	@mkdir -p $(@D)
	scripts/helpdoc.sh overview docs/sbw.7.in $(TOOLS) >$@.tmp && mv $@.tmp $@

$(BUILD)/completion/%: $(BIN)/% scripts/helpdoc.sh
	@mkdir -p $(@D)
	scripts/helpdoc.sh completion $< >$@.tmp && mv $@.tmp $@

# sbw.pc for the install's own prefix.  Requires.private: gsl, whose header
# core/sbw_rng.h includes (its Cflags); Libs.private: what the library
# links, as the tools do (a static link needs them all).
define SBW_PC
prefix=$(PREFIX)
libdir=$(LIBDIR)
includedir=$(INCLUDEDIR)

Name: sbw
Description: Softmax Bottleneck Workbench: rank, spectra, pairwise KL, heads
Version: $(VERSION)
Requires.private: gsl
Cflags: -I$${includedir}/sbw
Libs: -L$${libdir} -lsbw
Libs.private: $(SBW_LDFLAGS) $(LDLIBS)
endef
export SBW_PC

# Directories install fills, deepest first (uninstall removes those left
# empty, never PREFIX itself).
INSTALL_DIRS := $(PYTHONDIR)/sbw $(BASHCOMPDIR) $(MANDIR)/man1 $(MANDIR)/man7 $(PKGCONFIGDIR) \
  $(INCLUDEDIR)/sbw $(LIBDIR) $(PREFIX)/bin
install: all $(INSTALL_LIB) shared man completion
	install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS))
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(INSTALL_LIB) $(DESTDIR)$(LIBDIR)
	install -m 644 $(SHLIB) $(DESTDIR)$(LIBDIR)
	ln -sf libsbw.so.$(SO_VERSION) $(DESTDIR)$(LIBDIR)/libsbw.so.$(SO_MAJOR)
	ln -sf libsbw.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libsbw.so
	install -m 644 $(PUBLIC_H) $(DESTDIR)$(INCLUDEDIR)/sbw
	printf '%s\n' "$$SBW_PC" >$(DESTDIR)$(PKGCONFIGDIR)/sbw.pc
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7
	install -m 644 $(COMPLETIONS) $(DESTDIR)$(BASHCOMPDIR)
	install -d $(DESTDIR)$(PYTHONDIR)/sbw
	install -m 644 $(PY_SRC) $(DESTDIR)$(PYTHONDIR)/sbw
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(TOOL_NAMES))
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,libsbw.a libsbw.so libsbw.so.$(SO_MAJOR) libsbw.so.$(SO_VERSION))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/sbw/,$(notdir $(PUBLIC_H)))
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/sbw.pc
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) $(DESTDIR)$(MANDIR)/man7/sbw.7
	rm -f $(addprefix $(DESTDIR)$(BASHCOMPDIR)/,$(TOOL_NAMES))
	rm -f $(addprefix $(DESTDIR)$(PYTHONDIR)/sbw/,$(notdir $(PY_SRC)))
	rm -rf $(DESTDIR)$(PYTHONDIR)/sbw/__pycache__
	@for d in $(INSTALL_DIRS); do \
	  while [ "$$d" != "$(PREFIX)" ] && [ "$$d" != / ] && [ -d "$(DESTDIR)$$d" ] && rmdir "$(DESTDIR)$$d" 2>/dev/null; do \
	    d=$${d%/*}; \
	  done; \
	done

# make deb: a binary package of everything make install ships, under /usr
# (the library in the multiarch folder), built with dpkg-deb
# (scripts/mkdeb.sh; packaging/debian/ holds its control files) from a
# build of its own: Debian's hardening flags (dpkg-buildflags) and kernels
# for the architecture's baseline instead of -march=native, so the package
# runs on any machine of its architecture.
DEB_DIR := $(BUILD)/deb
DEB_KERN_CFLAGS := -O3 -ffast-math
deb:
	@scripts/deps.sh --deb
	rm -rf $(DEB_DIR)/root
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all; \
	$(MAKE) --no-print-directory BUILD=$(DEB_DIR)/build BIN=$(DEB_DIR)/build/bin \
	  KERN_CFLAGS='$(DEB_KERN_CFLAGS)' CFLAGS="$$(dpkg-buildflags --get CFLAGS)" \
	  CPPFLAGS="$$(dpkg-buildflags --get CPPFLAGS)" LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)" \
	  install DESTDIR=$(abspath $(DEB_DIR))/root PREFIX=/usr \
	  LIBDIR=/usr/lib/$$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	scripts/mkdeb.sh $(DEB_DIR)/root $(VERSION) $(DEB_DIR)

ALL_C := $(wildcard $(addsuffix /*.c,$(SRCDIRS)) tests/*.c)
ALL_H := $(wildcard $(addsuffix /*.h,$(SRCDIRS)) tests/*.h)

# The folders whose files must export only their own prefix
# (scripts/check-prefix.sh); cppcheck and clang-tidy read the library, the
# tools and the tests.
PREFIX_DIRS := core synth analysis models lm verify plots
PREFIX_OBJ := $(filter $(addprefix $(BUILD)/,$(addsuffix /%,$(PREFIX_DIRS))),$(LIB_OBJ))
LINT_C := $(wildcard $(addsuffix /*.c,$(SRCDIRS))) $(wildcard tests/*.c)

lint: $(PREFIX_OBJ) $(TESTS) $(TOOLS)
	scripts/check-deps.sh $(SRCDIRS) tests
	scripts/check-prefix.sh $(BUILD) $(PREFIX_DIRS)
	scripts/check-defs.sh $(BUILD) $(SRCDIRS) mpi tests
	scripts/check-contracts.sh $(PREFIX_DIRS)
	scripts/check-recipes.sh
	scripts/check-plots.sh plots
	cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,performance,portability \
	  --inline-suppr --suppressions-list=.cppcheck-suppressions \
	  $(addprefix -I,$(SRCDIRS)) -Itests $(LINT_C)
	clang-tidy --quiet $(LINT_C) -- $(SBW_CPPFLAGS) $(CPPFLAGS) -std=c11 -fopenmp

format:
	clang-format -i $(ALL_C) $(ALL_H)

format-check:
	clang-format --dry-run --Werror $(ALL_C) $(ALL_H)

clean:
	rm -rf build build-asan build-fuzz bin

# libFuzzer targets and their replay under make check (make fuzz).
include tests/fuzz/fuzz.mk

-include $(LIB_OBJ:.o=.d) $(TOOL_SRC:%.c=$(BUILD)/%.d) $(TEST_SRC:%.c=$(BUILD)/%.d) $(PIC_OBJ:.o=.d)

# ---- sbw-rank-mpi: sbw-rank over MPI with ScaLAPACK (issue 29) ----
# Built when mpicc links a ScaLAPACK program (Debian: openmpi-bin,
# libopenmpi-dev and libscalapack-openmpi-dev, `scripts/deps.sh --mpi`);
# otherwise `make` prints a note and tests/cli/test_rank_mpi.sh skips.  It
# goes to $(BUILD)/mpi/, not $(BIN)/: it is not installed, not packaged and
# has no man page (it needs an MPI launcher; docs/cluster.md), and the
# tests that walk $(BIN)/sbw-* stay as they are.  mpi/ is not in SRCDIRS:
# its one file is a tool, compiled by mpicc against libsbw.a.
MPICC ?= mpicc
SCALAPACK_LIBS ?= -lscalapack-openmpi
MPI_TOOL := $(BUILD)/mpi/sbw-rank-mpi
MPI_OK := $(shell command -v $(MPICC) >/dev/null 2>&1 && printf 'void pdgesvd_(void);\nint main(void){pdgesvd_();return 0;}\n' | $(MPICC) -x c -o /dev/null - $(SCALAPACK_LIBS) >/dev/null 2>&1 && echo yes)
.PHONY: mpi
ifeq ($(MPI_OK),yes)
mpi: $(MPI_TOOL)
$(BUILD)/mpi/%.o: mpi/%.c
	@mkdir -p $(@D)
	$(MPICC) $(SBW_CPPFLAGS) $(CPPFLAGS) $(SBW_CFLAGS) $(CFLAGS) -c $< -o $@
$(MPI_TOOL): $(BUILD)/mpi/tool_rank_mpi.o $(LIB)
	$(MPICC) $(SBW_LDFLAGS) $(LDFLAGS) $^ $(SCALAPACK_LIBS) $(LDLIBS) -o $@
-include $(BUILD)/mpi/tool_rank_mpi.d
else
mpi:
	@echo "note: sbw-rank-mpi not built: no mpicc linking ScaLAPACK (scripts/deps.sh --mpi installs openmpi-bin, libopenmpi-dev, libscalapack-openmpi-dev)"
endif
all: mpi
tests: mpi
