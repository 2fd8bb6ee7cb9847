/* fuzz_plotscript.c -- sbw-plot's script writer (plots/sbw_plot_fig,
 * sbw_plot_gp) with arbitrary bytes in every string slot: the input is
 * split at "\n%%\n" lines into the figure's kind, its title, the --title,
 * the command line, the -o stem, two panels' titles and axis labels, three
 * series labels (the first also a vertical line's), a note (also what the
 * points average, under the title) and a key position; the first byte picks the
 * format and the log axes.
 *
 * Property: the script holds nothing but the template's statements.  It is
 * written with the fuzzed strings and compared with the script written
 * with a placeholder "s" in every slot (the key: the same known position,
 * or "s"; computed once per flags byte and key), both normalised: the content of every '...'
 * literal removed ('' kept; a literal may not span lines), every comment
 * reduced to "#" ("#\" when its line ends with a backslash, which would
 * continue it), a legend entry wrapped over lines ('a'."\n".'b') joined
 * into one literal, every number written 0 (the key's spacing follows the
 * legend's lines).  The two must be equal byte for byte.  So no input
 * can add a statement, a system() call, a `backquote`, a ! shell line, a
 * load or call, an @macro or a '<' pipe: none is in the template.  Also:
 * no control byte but newline and no unsafe character (sbw_plot_gp_char)
 * anywhere in the script; the data file's non-comment lines are the same
 * both ways (a label cannot add a data row); and every line of the
 * normalised script starts with one of the template's statements (none
 * is system, load, call, !, or a bare name the template does not use).
 */
#include "fuzz_util.h"

#include "sbw_plot_fig.h"
#include "sbw_plot_script.h"
#include "sbw_plot_gp.h"

#include <math.h>
#include <stdbool.h>

enum {
    S_KIND,
    S_FTITLE,
    S_OTITLE,
    S_CMD,
    S_STEM,
    S_T1,
    S_X1,
    S_Y1,
    S_T2,
    S_X2,
    S_Y2,
    S_L1,
    S_L2,
    S_L3,
    S_NOTE,
    S_KEY,
    NSLOTS
};

/* The figure with strings from slot[]; format etc. from flags. */
static sbw_plot_fig *build(char *const *slot)
{
    sbw_plot_fig *f;
    sbw_plot_fig_panel *p1, *p2;
    sbw_plot_fig_series *s;
    FUZZ_REQUIRE(sbw_plot_fig_alloc(&f, slot[S_KIND]) == 0);
    f->title = strdup(slot[S_FTITLE]);
    FUZZ_REQUIRE(f->title != NULL);
    FUZZ_REQUIRE(sbw_plot_fig_note(f, "%s", slot[S_NOTE]) == 0);
    FUZZ_REQUIRE(sbw_plot_fig_add_panel(f, slot[S_T1], slot[S_X1], slot[S_Y1], &p1) == 0);
    FUZZ_REQUIRE(sbw_plot_fig_add_panel(f, slot[S_T2], slot[S_X2], slot[S_Y2], &p2) == 0);
    p1->key = slot[S_KEY];
    FUZZ_REQUIRE(sbw_plot_fig_add_series(p1, slot[S_L1], SBW_WITH_LINESPOINTS, 1, &s) == 0);
    FUZZ_REQUIRE(sbw_plot_fig_series_add(s, 1, 2, 0.5) == 0);
    FUZZ_REQUIRE(sbw_plot_fig_series_add(s, 10, 3, NAN) == 0);
    FUZZ_REQUIRE(sbw_plot_fig_add_series(p1, slot[S_L2], SBW_WITH_REFERENCE, 0, &s) == 0);
    FUZZ_REQUIRE(sbw_plot_fig_series_func(s, "x") == 0);
    FUZZ_REQUIRE(sbw_plot_fig_add_series(p2, slot[S_L3], SBW_WITH_STEPS, 2, &s) == 0);
    FUZZ_REQUIRE(sbw_plot_fig_series_add(s, 0.5, 1e-3, NAN) == 0);
    FUZZ_REQUIRE(sbw_plot_fig_series_add(s, 0.75, 4e-3, NAN) == 0);
    FUZZ_REQUIRE(sbw_plot_fig_vline(p2, 0.6, slot[S_L1]) == 0); /* an arrow and a key entry */
    f->avg = strdup(slot[S_NOTE]);                              /* under the title */
    FUZZ_REQUIRE(f->avg != NULL);
    return f;
}

/* Writes f's script (or data) into a new string. */
static char *written(const sbw_plot_fig *f, const sbw_plot_fig_opts *o, const char *stem,
                     bool script)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    FUZZ_REQUIRE(m != NULL);
    int st = script ? sbw_plot_script_write(f, o, stem, m) : sbw_plot_fig_write_data(f, m);
    FUZZ_REQUIRE(st == 0);
    FUZZ_REQUIRE(fclose(m) == 0);
    return buf;
}

/* Appends c to the normalised text. */
static void put(char **o, size_t *n, size_t *cap, const char *s, size_t k)
{
    if (*n + k + 1 > *cap) {
        *cap = 2 * (*n + k + 1);
        *o = realloc(*o, *cap);
        FUZZ_REQUIRE(*o != NULL);
    }
    memcpy(*o + *n, s, k);
    *n += k;
    (*o)[*n] = '\0';
}

/* The script with literals emptied, comments reduced and wrapped legend
 * entries joined (see the top). */
static char *normalise(const char *s)
{
    char *o = NULL;
    size_t n = 0, cap = 0;
    put(&o, &n, &cap, "", 0);
    for (const char *p = s; *p;) {
        if (*p == '\'') { /* a literal: '' inside is a quote */
            const char *q = p + 1;
            while (*q && !(*q == '\'' && q[1] != '\'')) {
                FUZZ_REQUIRE(*q != '\n'); /* a literal spanning lines */
                q += *q == '\'' ? 2 : 1;
            }
            FUZZ_REQUIRE(*q == '\''); /* unterminated */
            put(&o, &n, &cap, "''", 2);
            p = q + 1;
        } else if (*p == '"') { /* the template's own "..." (ARG0, \t, \n) */
            const char *q = strchr(p + 1, '"');
            FUZZ_REQUIRE(q != NULL && memchr(p, '\n', (size_t)(q - p)) == NULL);
            put(&o, &n, &cap, p, (size_t)(q - p + 1));
            p = q + 1;
        } else if (*p == '#') { /* a comment to the end of its line */
            size_t k = strcspn(p, "\n");
            put(&o, &n, &cap, p[k - 1] == '\\' ? "#\\" : "#", p[k - 1] == '\\' ? 2 : 1);
            p += k;
        } else if ((*p >= '0' && *p <= '9') || (*p == '-' && p[1] >= '0' && p[1] <= '9')) {
            put(&o, &n, &cap, "0", 1); /* numbers: sizes, spacing, key width, data */
            p += 1 + strspn(p + 1, "0123456789.");
        } else { /* up to the next character that starts one of the above */
            size_t k = *p == '-' ? 1 : strcspn(p, "'\"#0123456789-");
            put(&o, &n, &cap, p, k);
            p += k;
        }
    }
    /* wrapped legend entries: ''."\n".'' -> '' */
    static const char wrapped[] = "''.\"\\n\".''";
    for (char *w; (w = strstr(o, wrapped)) != NULL;)
        memmove(w + 2, w + sizeof wrapped - 1, strlen(w + sizeof wrapped - 1) + 1);
    return o;
}

/* Every character of s is safe in a script, or a newline. */
static void all_safe(const char *s)
{
    while (*s) {
        bool safe;
        size_t k = sbw_plot_gp_char(s, &safe);
        FUZZ_REQUIRE(safe || *s == '\n');
        s += k;
    }
}

/* The lines of s that are not comments (data rows, blank lines). */
static char *rows_of(const char *s)
{
    char *o = NULL;
    size_t n = 0, cap = 0;
    put(&o, &n, &cap, "", 0);
    for (const char *p = s; *p;) {
        size_t k = strcspn(p, "\n");
        if (*p != '#')
            put(&o, &n, &cap, p, k);
        put(&o, &n, &cap, "\n", 1);
        p += k + (p[k] == '\n');
    }
    return o;
}

/* Each normalised line begins with a statement of the template. */
static void template_lines(const char *s)
{
    static const char *const starts[] = {
        "#",       "set ",     "unset ",  "plot ",     "     ", "if (",
        "here = ", "plain = ", "data = ", "output = ", ""};
    for (const char *p = s; *p;) {
        size_t k = strcspn(p, "\n"), i = 0;
        while (starts[i][0] && strncmp(p, starts[i], strlen(starts[i])) != 0)
            i++;
        FUZZ_REQUIRE(starts[i][0] || k == 0);
        p += k + (p[k] == '\n');
    }
    FUZZ_REQUIRE(!strchr(s, '`') && !strchr(s, '@') && !strstr(s, "system") && !strstr(s, "load") &&
                 !strstr(s, "call") && !strstr(s, "\n!"));
}

/* The figure's options from the flags byte, the strings from slot: one
 * rule for the template and the fuzzed script, so they cannot drift. */
static sbw_plot_fig_opts opts_of(unsigned flags, char *const *slot)
{
    return (sbw_plot_fig_opts){.format = (sbw_plot_fig_format)(flags & 3),
                               .logx = flags & 4,
                               .logy = flags & 8,
                               .width = flags & 16 ? 300 : 0,
                               .height = flags & 16 ? 200 : 0,
                               .title = flags & 32 ? slot[S_OTITLE] : NULL,
                               .command = slot[S_CMD]};
}
/* The placeholder figure's normalised script and data rows for a flags
 * byte and a key position (5 known ones, else below the panel): computed
 * once each. */
static void template_of(unsigned flags, const char *key, char **script, char **rows)
{
    static const char *const keys[] = {"top left", "top right", "bottom left", "bottom right",
                                       "center"};
    static char *cache[256][6][2];
    size_t k = 0;
    while (k < 5 && strcmp(key, keys[k]) != 0)
        k++;
    if (!cache[flags][k][0]) {
        char *plain[NSLOTS];
        for (size_t i = 0; i < NSLOTS; i++) {
            plain[i] = strdup(i == S_KEY && k < 5 ? keys[k] : "s");
            FUZZ_REQUIRE(plain[i] != NULL);
        }
        sbw_plot_fig_opts o = opts_of(flags, plain);
        sbw_plot_fig *f = build(plain);
        char *sb = written(f, &o, plain[S_STEM], true), *db = written(f, &o, plain[S_STEM], false);
        cache[flags][k][0] = normalise(sb);
        cache[flags][k][1] = rows_of(db);
        free(sb);
        free(db);
        sbw_plot_fig_free(f);
        for (size_t i = 0; i < NSLOTS; i++)
            free(plain[i]);
    }
    *script = cache[flags][k][0];
    *rows = cache[flags][k][1];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[NSLOTS];
    size_t len[NSLOTS];
    unsigned flags = size ? data[0] : 0;
    size_t n = size ? fuzz_split(data + 1, size - 1, part, len, NSLOTS) : 0;
    char *slot[NSLOTS];
    for (size_t i = 0; i < NSLOTS; i++) {
        slot[i] = i < n ? strndup((const char *)part[i], len[i]) : strdup("");
        FUZZ_REQUIRE(slot[i] != NULL);
    }
    sbw_plot_fig_opts o = opts_of(flags, slot);
    sbw_plot_fig *f = build(slot);
    char *sa = written(f, &o, slot[S_STEM], true), *da = written(f, &o, slot[S_STEM], false);
    char *nb, *rb;
    template_of(flags, slot[S_KEY], &nb, &rb);
    all_safe(sa);
    char *na = normalise(sa);
    if (strcmp(na, nb) != 0) {
        fprintf(stderr,
                "sbw fuzz: the script's statements changed:\n%s\n---- normalised:\n%s\n"
                "---- template, normalised:\n%s\n",
                sa, na, nb);
        abort();
    }
    template_lines(na);
    char *ra = rows_of(da);
    FUZZ_REQUIRE(strcmp(ra, rb) == 0);
    free(ra);
    free(na);
    free(sa);
    free(da);
    sbw_plot_fig_free(f);
    for (size_t i = 0; i < NSLOTS; i++)
        free(slot[i]);
    return 0;
}
