# The installed man pages and bash completion (issue 30): every page renders
# with `man -l` and groff -ww without a warning; the options a page shows,
# section by section (the tool's OPTIONS, each subcommand's Options), are
# exactly those of the tool's --help, and so are the options its completion
# offers; subcommands complete as the first word; an option whose value is
# a DIR completes folders only.  The test reads --help with its own parser
# (not scripts/helpdoc.sh's), and checks that its comparison can fail (one
# tool's page against another's --help).
. tests/cli/lib.sh

if ldd "$BIN/sbw-info" 2>/dev/null | grep -q libasan; then
    echo "test_man: skipped under sanitizers (packaging is checked by make check)"
    finish
fi
for c in man groff bash; do
    command -v $c >/dev/null || {
        bad "$c is missing (scripts/deps.sh installs man-db)"
        finish
    }
done
R=$T/root
make -s --no-print-directory install DESTDIR="$R" PREFIX=/usr >"$T/log" 2>&1
expect_eq "$?" 0 "make install: $(tail -n 5 "$T/log")"
M=$R/usr/share/man
C=$R/usr/share/bash-completion/completions

# help_opts TOOL [SUB]: "SUB<TAB>OPTION" for every option name in the
# Options: block of `TOOL [SUB] --help`.
help_opts() {
    "$@" --help 2>/dev/null | awk -v sub_="${2:-}" '
        $0 == "Options:" { on = 1; next }
        on && $0 == "" { exit }
        on && /^  -/ {
            s = substr($0, 3); if (match(s, /  +/)) s = substr(s, 1, RSTART - 1)
            n = split(s, w, " ")
            for (k = 1; k <= n && w[k] ~ /^-/; k++) { o = w[k]; sub(/,$/, "", o); print sub_ "\t" o }
        }' | sort
}

# subs TOOL: its subcommands: a word after the name on a usage line or
# first on a two-space-indented line whose own --help says "Usage: TOOL W".
subs() {
    sn=${1##*/}
    "$1" --help | sed -n -e "s/^\(Usage:\)* *$sn \([a-z][a-z0-9+-]*\).*/\2/p" -e 's/^  \([a-z][a-z0-9+-]*\).*/\1/p' |
        sort -u | while read -r w; do
        "$1" "$w" --help 2>/dev/null | head -n 1 | grep -Eq "^Usage: $sn $w( |\$)" && echo "$w"
    done
}

# page_opts PAGE: "SUB<TAB>OPTION" for every option tag of the rendered
# page: under OPTIONS (SUB empty) and under a subcommand's "Options".
page_opts() {
    LC_ALL=C.UTF-8 MANWIDTH=250 man -l "$1" 2>/dev/null | awk '
        /^[A-Z]/ { sec = $0; on = (sec == "OPTIONS"); sub_ = ""; if (NF == 2 && $1 ~ /^SBW-/) sub_ = tolower($2); next }
        /^   [^ ]/ { on = ($1 == "Options"); next }
        on && /^       -/ {
            for (k = 1; k <= NF && $k ~ /^-/; k++) { o = $k; sub(/,$/, "", o); print sub_ "\t" o }
        }' | sort
}

mkdir -p "$T/cwd/d1"
: >"$T/cwd/f1"
# complete TOOL WORD...: what TOOL's installed completion offers for the
# last WORD, one per line, sorted (run in $T/cwd: one folder, one file).
complete_words() {
    tool=$1
    shift
    (cd "$T/cwd" && bash -c '
        . "$1"; shift
        fn=$(complete -p "$1" | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
        "$fn"; printf "%s\n" "${COMPREPLY[@]}"' sh "$C/$tool" "$tool" "$@") | sed '/^$/d' | sort
}

for t in "$BIN"/sbw-*; do
    tn=${t##*/}
    page=$M/man1/$tn.1
    LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" >/dev/null 2>"$T/w"
    expect_lines 0 "$T/w" "man -l $tn.1 warns: $(head -c 300 "$T/w")"
    groff -man -ww -z -K utf8 -Tutf8 "$page" 2>"$T/w"
    expect_lines 0 "$T/w" "groff -man -ww $tn.1 warns: $(head -c 300 "$T/w")"
    ss=$(subs "$t")
    {
        help_opts "$t"
        for s in $ss; do help_opts "$t" "$s"; done
    } | sort >"$T/want"
    [ -s "$T/want" ] && ok || bad "$tn: no option found in --help"
    page_opts "$page" >"$T/got"
    if cmp -s "$T/want" "$T/got"; then ok; else
        bad "$tn: the page and --help disagree on the options: $(diff "$T/want" "$T/got" | grep '^[<>]' | head -n 8 | tr '\n\t' '  ')"
    fi
    # Completion: every option of --help, section by section.
    for s in "" $ss; do
        help_opts "$t" $s | cut -f 2 | sort >"$T/want"
        complete_words "$tn" $s - >"$T/got"
        if cmp -s "$T/want" "$T/got"; then ok; else
            bad "$tn $s: completion of '-' and --help disagree: $(diff "$T/want" "$T/got" | grep '^[<>]' | head -n 6 | tr '\n' ' ')"
        fi
    done
    if [ -n "$ss" ]; then
        printf '%s\n' $ss d1 f1 | sort >"$T/want"
        complete_words "$tn" "" >"$T/got"
        if cmp -s "$T/want" "$T/got"; then ok; else bad "$tn: first word completes to $(tr '\n' ' ' <"$T/got")"; fi
    fi
done
LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$M/man7/sbw.7" >/dev/null 2>"$T/w"
expect_lines 0 "$T/w" "man -l sbw.7 warns: $(head -c 300 "$T/w")"
groff -man -ww -z -K utf8 -Tutf8 "$M/man7/sbw.7" 2>"$T/w"
expect_lines 0 "$T/w" "groff -man -ww sbw.7 warns: $(head -c 300 "$T/w")"
for t in "$BIN"/sbw-*; do
    LC_ALL=C.UTF-8 MANWIDTH=250 man -l "$M/man7/sbw.7" | grep -q "^       ${t##*/}(1)" && ok ||
        bad "sbw(7) does not list ${t##*/}"
done

# The comparison can fail: sbw-rank's page is not sbw-kl's --help.
help_opts "$BIN/sbw-kl" >"$T/want"
page_opts "$M/man1/sbw-rank.1" >"$T/got"
if cmp -s "$T/want" "$T/got"; then bad "the option comparison cannot tell two tools apart"; else ok; fi
# A page shows options as typed (ASCII hyphen-minus, so they can be copied).
LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$M/man1/sbw-rank.1" >"$T/rank.txt" 2>/dev/null
expect_grep '^       --center' "$T/rank.txt" "sbw-rank(1) shows --center with ASCII hyphens"
# A value completes as a folder after a DIR option, as anything after a FILE.
expect_eq "$(complete_words sbw-fit --save "" | tr '\n' ' ')" "d1 " "sbw-fit --save completes folders"
expect_eq "$(complete_words sbw-rank --spectrum "" | tr '\n' ' ')" "d1 f1 " "sbw-rank --spectrum completes files"
expect_eq "$(complete_words sbw-rank --ce | tr '\n' ' ')" "--center " "sbw-rank --ce completes --center"
finish
