#!/bin/sh
# The dependency rule between the library's folders (docs/DESIGN.md):
#
#   core <- {synth, analysis, models} <- {lm, verify};  plots <- core
#
# A file may include headers of its own folder and of the folders its
# folder is allowed to see; tests/ may include anything.  Every quoted
# #include of every .c and .h in the folders given is resolved to the
# folder that holds the header; one line per violation, exit 1 if any.
# Usage: scripts/check-deps.sh FOLDER...
set -u
allowed() { # $1 = folder: the folders it may include from, itself first
    case "$1" in
    core) echo "core" ;;
    synth | analysis | models) echo "$1 core" ;;
    lm | verify) echo "$1 core synth analysis models" ;;
    plots) echo "plots core" ;;
    tests) echo "tests core synth analysis models lm verify plots" ;;
    *) echo "" ;;
    esac
}
dirs=""
for d in "$@"; do [ -d "$d" ] && dirs="$dirs $d"; done
bad=0
for d in $dirs; do
    ok=$(allowed "$d")
    if [ -z "$ok" ]; then
        echo "check-deps: folder $d/ has no place in the dependency rule (add it to scripts/check-deps.sh and docs/DESIGN.md)"
        bad=1
        continue
    fi
    for f in "$d"/*.c "$d"/*.h; do
        [ -f "$f" ] || continue
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
            sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' >"${TMPDIR:-/tmp}/check-deps.$$"
        while read -r line hdr; do
            home=""
            for h in $dirs; do
                if [ -f "$h/$hdr" ]; then home=$h; break; fi
            done
            [ -n "$home" ] || continue # a system or generated header
            case " $ok " in *" $home "*) continue ;; esac
            echo "$f:$line: includes $home/$hdr, but $d/ may only include from: $ok"
            bad=1
        done <"${TMPDIR:-/tmp}/check-deps.$$"
    done
done
rm -f "${TMPDIR:-/tmp}/check-deps.$$"
exit $bad
