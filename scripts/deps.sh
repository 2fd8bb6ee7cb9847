#!/bin/sh
# Installs what sbw needs when it is missing, and says what it does.
#   scripts/deps.sh          build + test dependencies (make check, make demo),
#                            GNU time among them (sweep.sh --emit slurm)
#   scripts/deps.sh --bench  also the Python references used by make bench
#   scripts/deps.sh --bench-smoke  what make bench-smoke needs (CI): NumPy,
#                            SciPy, GNU time and CLP (together 65 MB to
#                            download); not PyTorch (215 MB to download,
#                            894 MB and ~290 packages installed: a minute or
#                            two of CI time for the torch lines of two
#                            benches, which the smoke mode skips with a note)
#   scripts/deps.sh --fuzz   also clang, its libFuzzer runtime and libomp
#                            (make fuzz only; make check replays with gcc)
#   scripts/deps.sh --deb    also dpkg-dev and lintian (make deb: the
#                            package's dependencies, its checks; lintian
#                            is about 130 packages, so not in the build list;
#                            .ci/run installs it so make check runs it)
#   scripts/deps.sh --python the Python binding's test dependencies:
#                            NumPy (python3-numpy, which the binding and
#                            the .deb need) and pandas (python3-pandas: the
#                            check that every table reads in pd.read_csv);
#                            about 13 MB to download, 65 MB installed
#                            (NumPy also comes with --bench-smoke);
#                            tests/cli/test_python.sh runs with them and is
#                            skipped with a note without NumPy (make check
#                            needs no Python); .ci/run calls it
#   scripts/deps.sh --slurm  also Slurm (slurm-wlm: slurmctld, slurmd and the
#                            client commands), munge and GNU time, for
#                            tests/cli/test_slurm.sh (a real single-node
#                            Slurm, started by the test; skipped without
#                            them) and experiments/sweep.sh --emit slurm
#                            (GNU time measures its calibration's memory);
#                            .ci/run calls it before make check
#   scripts/deps.sh --mpi    also OpenMPI (openmpi-bin: mpicc, mpirun) and
#                            ScaLAPACK built on it (libscalapack-openmpi-dev),
#                            for build/bin/sbw-rank-mpi (mpi/) and its test;
#                            .ci/run calls it before make check
# On a machine without apt-get it lists the packages and stops (exit 1).
set -eu

BUILD_PKGS="gcc make liblapacke-dev libopenblas-dev libdnnl-dev libgsl-dev libglpk-dev libgmp-dev libcmocka-dev libjansson-dev gnuplot-nox pkg-config man-db"
BENCH_SMOKE_PKGS="python3 python3-numpy python3-scipy time coinor-libclp-dev"
BENCH_PKGS="$BENCH_SMOKE_PKGS python3-torch"
FUZZ_PKGS="clang libclang-rt-dev libomp-dev"
DEB_PKGS="dpkg-dev lintian"
SLURM_PKGS="slurm-wlm munge time"
PY_PKGS="python3 python3-numpy python3-pandas"
MPI_PKGS="openmpi-bin libopenmpi-dev libscalapack-openmpi-dev"

want_bench=0
want_fuzz=0
want_deb=0
[ "${1:-}" = "--bench" ] && want_bench=1
[ "${1:-}" = "--bench-smoke" ] && want_bench=1 BENCH_PKGS=$BENCH_SMOKE_PKGS
[ "${1:-}" = "--fuzz" ] && want_fuzz=1
[ "${1:-}" = "--deb" ] && want_deb=1
want_slurm=0
[ "${1:-}" = "--slurm" ] && want_slurm=1
want_py=0
[ "${1:-}" = "--python" ] && want_py=1
want_mpi=0
[ "${1:-}" = "--mpi" ] && want_mpi=1

missing=""
have_pkg() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}
# Headers and tools first, so a machine that got them another way passes.
headers_ok() {
    printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <lapacke.h>\n#include <cblas.h>\n#include <gsl/gsl_rng.h>\n#include <glpk.h>\n#include <gmp.h>\n#include <cmocka.h>\n#include <jansson.h>\nint main(void){return 0;}\n' |
        ${CC:-cc} -x c -o /dev/null - -lgsl -lglpk -lgmp -llapacke -lopenblas -lcmocka -ljansson -lm >/dev/null 2>&1
}
# pkg-config, man (man-db) and groff: make install's and its tests' tools.
tools_ok() {
    for c in gnuplot pkg-config man groff; do
        command -v $c >/dev/null 2>&1 || return 1
    done
}
if ! headers_ok || ! tools_ok; then
    for p in $BUILD_PKGS; do have_pkg "$p" || missing="$missing $p"; done
    [ -n "$missing" ] || missing="$BUILD_PKGS"
fi
# GNU time: experiments/sweep.sh --emit slurm measures its calibration
# runs' peak memory with it (tests/cli/test_sweep.sh runs that)
[ -x /usr/bin/time ] || have_pkg time || missing="$missing time"
if [ $want_bench = 1 ]; then
    for p in $BENCH_PKGS; do have_pkg "$p" || missing="$missing $p"; done
fi
# libFuzzer comes with clang's runtime (libclang_rt.fuzzer); a clang that
# links -fsanitize=fuzzer with OpenMP is enough, however it was installed.
fuzz_ok() {
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){return d && n;}\n' |
        clang -fsanitize=fuzzer,address,undefined -fopenmp -x c -o /dev/null - >/dev/null 2>&1
}
if [ $want_fuzz = 1 ] && ! fuzz_ok; then
    for p in $FUZZ_PKGS; do have_pkg "$p" || missing="$missing $p"; done
fi
deb_ok() {
    for c in dpkg-deb dpkg-shlibdeps dpkg-architecture lintian; do
        command -v $c >/dev/null 2>&1 || return 1
    done
}
if [ $want_deb = 1 ] && ! deb_ok; then
    for p in $DEB_PKGS; do have_pkg "$p" || missing="$missing $p"; done
fi
# the daemons, the commands the tests and sweep.sh call, and GNU time
slurm_ok() {
    for t in slurmctld slurmd munged sbatch squeue scontrol scancel sinfo srun; do
        command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || return 1
    done
    [ -x /usr/bin/time ]
}
if [ $want_slurm = 1 ] && ! slurm_ok; then
    for p in $SLURM_PKGS; do have_pkg "$p" || missing="$missing $p"; done
fi
# Debian's python3 with NumPy and pandas (the one test_python.sh finds
# first may be another: it also tries /usr/bin/python3)
py_ok() {
    for p in python3 /usr/bin/python3; do
        command -v $p >/dev/null 2>&1 && $p -c 'import numpy, pandas' >/dev/null 2>&1 && return 0
    done
    return 1
}
if [ $want_py = 1 ] && ! py_ok; then
    for p in $PY_PKGS; do have_pkg "$p" || missing="$missing $p"; done
fi
# mpicc and mpirun, and a program linked with ScaLAPACK (mpi/mpi.mk's test)
mpi_ok() {
    command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 &&
        printf 'void pdgesvd_(void);\nint main(void){pdgesvd_();return 0;}\n' |
        mpicc -x c -o /dev/null - -lscalapack-openmpi >/dev/null 2>&1
}
if [ $want_mpi = 1 ] && ! mpi_ok; then
    for p in $MPI_PKGS; do have_pkg "$p" || missing="$missing $p"; done
fi
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "sbw: missing dependencies and no apt-get on this machine." >&2
    echo "sbw: install (Debian names):$missing" >&2
    echo "sbw: i.e. LAPACKE, OpenBLAS (with CBLAS), GSL, GLPK, cmocka, Jansson, gnuplot, pkg-config, man; then rerun make." >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "sbw: need root (or sudo) to apt-get install:$missing" >&2
        exit 1
    fi
fi
echo "sbw: installing missing packages with apt-get:$missing"
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1; then
    echo "sbw: apt-get update (package lists are stale or absent)"
    $SUDO apt-get update -q >/dev/null
    $SUDO apt-get install -y -q --no-install-recommends $missing
fi
echo "sbw: dependencies installed"
