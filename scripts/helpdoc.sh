#!/bin/sh
# Man pages and bash completion from the tools' own --help (issue 30), so a
# page cannot drift from the tool it describes: every tool builds its --help
# from its option table (core/sbw_cli.c's print_help: "  NAME METAVAR" padded
# to 22 columns, then the help and "[default]"), and this script reads that
# text back, for the tool and for each of its subcommands (a word W whose
# `TOOL W --help` starts "Usage: TOOL W": sbw-synth's kinds, sbw-lm's
# commands, sbw-plot table).  The Makefile runs it on the built tools
# (make man, make completion, make install); tests/cli/test_man.sh checks
# the pages and the completion against --help.
#
#   scripts/helpdoc.sh man BIN/sbw-X            its section-1 page, on stdout
#   scripts/helpdoc.sh completion BIN/sbw-X     its bash completion script
#   scripts/helpdoc.sh overview TEMPLATE BIN/sbw-X...
#                                               sbw(7): TEMPLATE with @TOOLS@
#                                               (one entry per tool),
#                                               @SEEALSO@ and @VERSION@
#                                               filled in
# Exit 1 when a tool's --help fails or does not start with "Usage:".
set -eu

die() {
    echo "helpdoc.sh: $*" >&2
    exit 1
}

# collect TOOL DIR: TOOL's --help into DIR/0, each subcommand's into
# DIR/c.NAME, the subcommands' names (in order of appearance) into DIR/subs.
collect() {
    tool=$1 dir=$2 name=${1##*/}
    "$tool" --help >"$dir/0" 2>/dev/null || die "$tool --help failed"
    head -n 1 "$dir/0" | grep -q "^Usage: $name" || die "$tool --help does not start with 'Usage: $name'"
    : >"$dir/subs"
    # Candidates: the word after the tool's name on a usage line, and the
    # first word of a line indented by two spaces (a list of kinds).
    awk -v name="$name" '
        { sub(/^Usage: +/, ""); sub(/^ +/, "") }
        $1 == name && $2 ~ /^[a-z][a-z0-9+-]*$/ { print $2; next }
        FNR > 1 && $1 ~ /^[a-z][a-z0-9+-]*$/ { print $1 }
    ' "$dir/0" | awk '!seen[$0]++' | while read -r w; do
        # a lone "--help" line (two-space list) is no candidate; the regex
        # above already keeps only plain lowercase words
        if "$tool" "$w" --help >"$dir/c.$w" 2>/dev/null &&
            head -n 1 "$dir/c.$w" | grep -Eq "^Usage: $name $w( |\$)"; then
            echo "$w" >>"$dir/subs"
        else
            rm -f "$dir/c.$w"
        fi
    done
}

# The parser and the three writers, in one awk program: MODE is man,
# completion or entry (sbw(7)'s paragraph for the tool).  Operands: the
# top-level help, then cmd=NAME FILE per subcommand.
AWK_PROG='
function esc(s) {
    gsub(/\\/, "\\e", s)
    gsub(/-/, "\\-", s)
    if (s ~ /^[.'"'"']/) s = "\\&" s
    return s
}
function upper(s) { return toupper(s) }
# --- parsing: per file (index i), the usage lines, the summary, the
# options (names, metavar, help), the details, the exit status
FNR == 1 {
    i = n++; subname[i] = cmd; state = "usage"; nu[i] = 0; no[i] = 0; nd[i] = 0
    summ[i] = ""; hasopts[i] = 0
}
state == "usage" {
    if (FNR == 1) { line = $0; sub(/^Usage: +/, "", line); usage[i, nu[i]++] = line; next }
    if ($0 ~ /^       [^ ]/) { line = $0; sub(/^ +/, "", line); usage[i, nu[i]++] = line; next }
    state = "summary"
}
state == "summary" {
    if ($0 == "") { state = "body"; next }
    if ($0 == "Options:") { state = "opts"; hasopts[i] = 1; next }
    summ[i] = summ[i] (summ[i] == "" ? "" : " ") $0
    next
}
state == "opts" {
    if ($0 == "") { state = "body"; next }
    if ($0 ~ /^  -/) {
        s = substr($0, 3); left = s; help = ""
        if (match(s, /  +/)) { left = substr(s, 1, RSTART - 1); help = substr(s, RSTART + RLENGTH) }
        k = no[i]++; names = ""; meta = ""
        nt = split(left, tok, " ")
        for (t = 1; t <= nt; t++) {
            if (meta == "" && tok[t] ~ /^-/) { w = tok[t]; sub(/,$/, "", w); names = names (names == "" ? "" : " ") w }
            else meta = meta (meta == "" ? "" : " ") tok[t]
        }
        oname[i, k] = names; ometa[i, k] = meta; ohelp[i, k] = help
        next
    }
    if ($0 ~ /^                    +[^ ]/ && no[i] > 0) {
        line = $0; sub(/^ +/, "", line); k = no[i] - 1
        ohelp[i, k] = ohelp[i, k] (ohelp[i, k] == "" ? "" : " ") line
        next
    }
    printf "helpdoc.sh: %s: an Options line that is no option: %s\n", FILENAME, $0 > "/dev/stderr"
    bad = 1; exit 1
}
state == "body" {
    if ($0 == "Options:" && !hasopts[i]) { state = "opts"; hasopts[i] = 1; next }
    if ($0 ~ /^Exit status: /) { if (exitst == "") { exitst = $0; sub(/^Exit status: /, "", exitst) } next }
    det[i, nd[i]++] = $0
}
# --- man: text that is not indented is filled, indented runs are kept as
# they are (tables, examples), a blank line starts a paragraph
function text(line) {
    if (line == "") { if (nf) { print ".fi"; nf = 0 } pp = 1; return }
    if (pp) { print ".PP"; pp = 0 }
    if (line ~ /^ /) { if (!nf) { print ".nf"; nf = 1 } }
    else if (nf) { print ".fi"; nf = 0 }
    print esc(line)
}
function end_text() { if (nf) print ".fi"; nf = 0; pp = 0 }
function details(i,   j, last) {
    last = nd[i]
    while (last > 0 && det[i, last - 1] == "") last--
    for (j = 0; j < last; j++) text(det[i, j])
    end_text()
}
function options(i,   k, nn, nm, x, tag) {
    for (k = 0; k < no[i]; k++) {
        nn = split(oname[i, k], nm, " "); tag = ""
        for (x = 1; x <= nn; x++) tag = tag (x > 1 ? ", " : "") "\\fB" esc(nm[x]) "\\fR"
        if (ometa[i, k] != "") tag = tag " \\fI" esc(ometa[i, k]) "\\fR"
        print ".TP"; print tag; print esc(ohelp[i, k])
    }
}
function synopsis(i, prefix,   j, line) {
    for (j = 0; j < nu[i]; j++) {
        line = usage[i, j]
        if (substr(line, 1, length(prefix)) == prefix) line = "\\fB" esc(prefix) "\\fR" esc(substr(line, length(prefix) + 1))
        else line = esc(line)
        if (j > 0) print ".br"
        print line
    }
}
# The NAME line: the summary up to its first sentence end, colon or "(".
function short(s) {
    if (match(s, /(\. |: | \()/)) s = substr(s, 1, RSTART - 1)
    sub(/\.$/, "", s)
    return s
}
function seealso(   i, j, k, all, w, nw, out, seen) {
    all = ""
    for (i = 0; i < n; i++) {
        all = all " " summ[i]
        for (j = 0; j < nd[i]; j++) all = all " " det[i, j]
        for (k = 0; k < no[i]; k++) all = all " " ohelp[i, k]
    }
    out = ".BR sbw (7)"
    nw = split(known, w, " ")
    for (k = 1; k <= nw; k++)
        if (w[k] != tool && index(all, w[k]) > 0 && !seen[w[k]]++) out = out ",\n.BR " esc(w[k]) " (1)"
    print out
}
function man(   i) {
    printf ".\\\" Generated by scripts/helpdoc.sh from %s --help; do not edit.\n", tool
    printf ".TH %s 1 \"\" \"sbw %s\" \"sbw manual\"\n", esc(upper(tool)), version
    print ".nh"
    print ".ad l"
    print ".SH NAME"
    print esc(tool) " \\- " esc(short(summ[0]))
    print ".SH SYNOPSIS"
    synopsis(0, tool)
    print ".SH DESCRIPTION"
    text(summ[0]); text(""); details(0)
    if (hasopts[0]) { print ".SH OPTIONS"; options(0) }
    for (i = 1; i < n; i++) {
        print ".SH \"" esc(upper(tool " " subname[i])) "\""
        synopsis(i, tool " " subname[i])
        print ".PP"
        text(summ[i]); text(""); details(i)
        if (hasopts[i]) { print ".SS Options"; options(i) }
    }
    if (exitst != "") { print ".SH \"EXIT STATUS\""; print esc(exitst) }
    print ".SH \"SEE ALSO\""
    seealso()
}
# --- completion: subcommands as the first word, options by prefix, a
# directory after an option whose metavar says DIR, a file after any
# other option that takes a value, files otherwise
function words(i, what,   k, nn, nm, x, out) {
    out = ""
    for (k = 0; k < no[i]; k++) {
        if (what == "value" && ometa[i, k] == "") continue
        if (what == "dir" && ometa[i, k] !~ /DIR/) continue
        nn = split(oname[i, k], nm, " ")
        for (x = 1; x <= nn; x++) out = out (out == "" ? "" : " ") nm[x]
    }
    return out
}
function completion(   i, fn, subs) {
    fn = "_" tool; gsub(/[^A-Za-z0-9_]/, "_", fn)
    subs = ""
    for (i = 1; i < n; i++) subs = subs (subs == "" ? "" : " ") subname[i]
    printf "# bash completion for %s, generated by scripts/helpdoc.sh from %s --help;\n", tool, tool
    print "# do not edit.  Installed to share/bash-completion/completions/."
    print fn "()"
    print "{"
    print "    local cur=${COMP_WORDS[COMP_CWORD]} prev= sub= opts vals dirs"
    print "    local subs=" q subs q
    print "    [ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}"
    print "    [ \"$COMP_CWORD\" -gt 1 ] && case \" $subs \" in *\" ${COMP_WORDS[1]} \"*) sub=${COMP_WORDS[1]} ;; esac"
    print "    case $sub in"
    for (i = 1; i < n; i++) {
        print "    " subname[i] ")"
        print "        opts=" q words(i, "all") q
        print "        vals=" q words(i, "value") q
        print "        dirs=" q words(i, "dir") q " ;;"
    }
    print "    *)"
    print "        opts=" q words(0, "all") q
    print "        vals=" q words(0, "value") q
    print "        dirs=" q words(0, "dir") q " ;;"
    print "    esac"
    print "    if [ -n \"$prev\" ] && case \" $vals \" in *\" $prev \"*) true ;; *) false ;; esac; then"
    print "        case \" $dirs \" in"
    print "        *\" $prev \"*) mapfile -t COMPREPLY < <(compgen -d -- \"$cur\") ;;"
    print "        *) mapfile -t COMPREPLY < <(compgen -f -- \"$cur\") ;;"
    print "        esac"
    print "        return 0"
    print "    fi"
    print "    case $cur in"
    print "    -*) mapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\") ;;"
    print "    *)"
    print "        if [ \"$COMP_CWORD\" -eq 1 ] && [ -n \"$subs\" ]; then"
    print "            mapfile -t COMPREPLY < <(compgen -W \"$subs\" -- \"$cur\"; compgen -f -- \"$cur\")"
    print "        else"
    print "            mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")"
    print "        fi ;;"
    print "    esac"
    print "}"
    print "complete -o filenames -F " fn " " tool
}
# --- sbw(7): one tagged paragraph per tool
function entry(   i, subs) {
    print ".TP"
    print ".BR " esc(tool) " (1)"
    subs = ""
    for (i = 1; i < n; i++) subs = subs (subs == "" ? "" : ", ") subname[i]
    print esc(short(summ[0])) (subs == "" ? "." : "; commands: " esc(subs) ".")
}
END {
    if (bad) exit 1
    if (mode == "man") man()
    else if (mode == "completion") completion()
    else entry()
}
'

# run MODE TOOL: collect TOOL's help texts and write MODE's output.
run() {
    mode=$1 tool=$2
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbw-helpdoc-XXXXXX")
    collect "$tool" "$tmp"
    set -- "$tmp/0"
    while read -r w; do set -- "$@" "cmd=$w" "$tmp/c.$w"; done <"$tmp/subs"
    version=$("$tool" --version | awk 'NR == 1 { print $NF }')
    known=$(for t in "${tool%/*}"/sbw-*; do printf '%s ' "${t##*/}"; done)
    st=0
    awk -v mode="$mode" -v tool="${tool##*/}" -v version="$version" -v known="$known" \
        -v cmd= -v q="'" "$AWK_PROG" "$@" || st=$?
    rm -rf "$tmp"
    return $st
}

[ $# -ge 2 ] || die "usage: helpdoc.sh man|completion TOOL, or overview TEMPLATE TOOL..."
case $1 in
man | completion)
    [ -x "$2" ] || die "$2: not an executable"
    run "$1" "$2"
    ;;
overview)
    template=$2
    shift 2
    [ -r "$template" ] || die "$template: cannot read"
    tools=$(mktemp "${TMPDIR:-/tmp}/sbw-helpdoc-XXXXXX")
    for t in "$@"; do run entry "$t" >>"$tools" || {
        rm -f "$tools"
        exit 1
    }; done
    version=$("$1" --version | awk 'NR == 1 { print $NF }')
    see=$(for t in "$@"; do printf '%s\n' "${t##*/}"; done | sort)
    awk -v tools="$tools" -v version="$version" -v see="$see" '
        $0 == "@TOOLS@" { while ((getline l < tools) > 0) print l; next }
        $0 == "@SEEALSO@" {
            n = split(see, w, "\n")
            for (k = 1; k <= n; k++) { gsub(/-/, "\\-", w[k]); print ".BR " w[k] " (1)" (k < n ? "," : "") }
            next
        }
        { gsub(/@VERSION@/, version); print }
    ' "$template"
    rm -f "$tools"
    ;;
*) die "unknown mode '$1'" ;;
esac
