#!/bin/sh
# scripts/check-recipes.sh -- recipes and plots present, tools compute
# (docs/DESIGN.md, "Recipes only chain tools").  Fails (exit 1, one line
# per finding: file, line, what) when an awk program in experiments/ or
# plots/ (a *.awk file, or the single-quoted program of an `awk` call in a
# shell script) does arithmetic on results:
#   - a math or random function: sqrt log exp sin cos atan2 int rand srand;
#   - an arithmetic operator between operands: + - * / % ^ (binary, with a
#     space on either side, or +=, -=, *=, /=, %=, ^=), which is how every
#     sum, ratio, mean, threshold or interpolation is written;
#   - a comparison of a field ($...) by < <= > >= (a threshold on a result).
# Selection, joining and formatting pass: ==, !=, ~ on fields, counters
# (n++), NR/NF tests, for-loops over fields, printf formats.  String and
# regex literals are not looked at.  A program that must compute (the mean
# and sd over seeds, or arithmetic not yet moved into a tool) is allowed by
# a comment line "# check-recipes: allow REASON" directly above the awk
# call (for a *.awk file, anywhere in its first comment block): the reason
# is printed with --list so the allowances stay visible.
# Usage: scripts/check-recipes.sh [--list] [FILE...]   (default: every
# *.sh and *.awk under experiments/ and plots/)
set -eu
cd "$(dirname "$0")/.."
list=0
[ "${1:-}" = --list ] && list=1 && shift
if [ $# -eq 0 ]; then
    set -- $(find experiments plots -type f \( -name '*.sh' -o -name '*.awk' \) | sort)
fi
status=0
for f in "$@"; do
    awk -v file="$f" -v list="$list" '
    # the program text of an awk call: from the quote after "awk" to the
    # closing quote, where '"'"' is a quote inside it
    function scan(text, line, allowed,   t, bad) {
        t = text
        gsub(/"([^"\\]|\\.)*"/, "\"\"", t)            # string literals
        gsub(/(^|[~(!,{;&|]|\n)[ \t]*\/([^\/\\\n]|\\.)+\//, " R", t) # regex literals
        gsub(/\$\(NF > 2 \? 3 : NF\)/, "$NF", t)
        bad = ""
        if (match(t, /(^|[^a-z_])(sqrt|log|exp|sin|cos|atan2|int|rand|srand)[ \t]*\(/))
            bad = "a math function: " substr(t, RSTART, RLENGTH)
        else if (match(t, /[+*\/%^-]=/))
            bad = "an arithmetic assignment: " substr(t, RSTART, RLENGTH)
        else if (match(t, /[A-Za-z0-9_\])$][ \t]+[-+*\/%^][ \t]+[A-Za-z0-9_$(.]/))
            bad = "an arithmetic operator: " substr(t, RSTART, RLENGTH)
        else if (match(t, /\$[A-Za-z0-9_(][^;{}?]*[ \t](<|<=|>|>=)[ \t]/) ||
                 match(t, /[^<>!=][ \t](<|<=|>|>=)[ \t]+\$[A-Za-z0-9_(]/))
            bad = "a comparison of a field: " substr(t, RSTART, RLENGTH)
        if (bad == "")
            return
        gsub(/\n/, " ", bad)
        if (allowed != "") {
            if (list)
                printf "%s:%d: allowed (%s): %s\n", file, line, allowed, bad
            return
        }
        printf "%s:%d: awk program computes (%s); move it into a tool, or mark it \"# check-recipes: allow REASON\"\n", file, line, bad
        found = 1
    }
    FNR == 1 { isawk = file ~ /\.awk$/ }
    isawk {
        if (!started && /^#/ && match($0, /check-recipes: allow .*/)) fileallow = substr($0, RSTART + 21)
        if (!/^#/) started = 1
        prog = prog $0 "\n"
        next
    }
    inprog {
        q = index($0, "'"'"'")
        rest = $0
        while (q && substr(rest, q, 5) == "'"'"'\"'"'"'\"'"'"'") {
            body = body substr(rest, 1, q + 4); rest = substr(rest, q + 5); q = index(rest, "'"'"'") }
        if (q) { body = body substr(rest, 1, q - 1); scan(body, start, allow); inprog = 0; allow = "" }
        else body = body rest "\n"
        next
    }
    {
        if (match($0, /^[ \t]*# check-recipes: allow .*/)) { allow = substr($0, RSTART); sub(/^[ \t]*# check-recipes: allow /, "", allow); next }
        line = $0
        gsub(/-F'"'"'[^'"'"']*'"'"'/, "-F.", line) # a field separator in quotes is not the program
        if (match(line, /(^|[^A-Za-z_-])awk[ \t][^'"'"']*'"'"'/) && line !~ /^[ \t]*#/) {
            start = FNR
            rest = substr(line, RSTART + RLENGTH)
            body = ""
            q = index(rest, "'"'"'")
            while (q && substr(rest, q, 5) == "'"'"'\"'"'"'\"'"'"'") {
                body = body substr(rest, 1, q + 4); rest = substr(rest, q + 5); q = index(rest, "'"'"'") }
            if (q) { body = body substr(rest, 1, q - 1); scan(body, start, allow); allow = "" }
            else { body = body rest "\n"; inprog = 1 }
            next
        }
        if ($0 !~ /^[ \t]*#/ && $0 !~ /^[ \t]*$/) allow = ""
    }
    END {
        if (isawk) scan(prog, 1, fileallow)
        exit found
    }' "$f" || status=1
done
exit $status
