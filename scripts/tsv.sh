# scripts/tsv.sh -- reading sbw's tables from shell (sourced by tests,
# benchmarks and experiments).  A table is "# key=value" lines, a header
# line of column names, then rows, tab-separated.

# tsv_field FILE COLUMN [ROW]: the value in data row ROW (1 = first).
tsv_field() {
    awk -F'\t' -v col="$2" -v row="${3:-1}" '
        /^#/ { next }
        !h { for (i = 1; i <= NF; i++) if ($i == col) c = i; h = 1; next }
        ++r == row { if (c) print $c; exit }' "$1"
}

# tsv_column FILE COLUMN: the values of COLUMN in every data row, one a line.
tsv_column() {
    awk -F'\t' -v col="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == col) c = i; h = 1; next } c { print $c }' "$1"
}

# tsv_where FILE KEYCOL KEY COLUMN: the value of COLUMN in the last data
# row whose KEYCOL is KEY (nothing when none is, or FILE is missing).
tsv_where() {
    [ -s "$1" ] || return 0
    awk -F'\t' -v k="$2" -v v="$3" -v c="$4" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next }
        $col[k] == v { x = $col[c] } END { printf "%s", x }' "$1"
}

# tsv_meta FILE KEY: the value of a "# KEY=value" header line.
tsv_meta() {
    awk -v key="$2" 'index($0, "# " key "=") == 1 { print substr($0, length(key) + 4); exit }' "$1"
}

# tsv_rows FILE: the header line and data rows, without "# " lines.
tsv_rows() { grep -v '^#' "$1"; }
