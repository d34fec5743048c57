/* jvmlab GC log line pre-filter (unified logging), built on first use with the system cc.
 *
 * Copies from `in` to `out` only the lines the Python unified parser could use, so that
 * the parser's regexes run over a few percent of a detailed log instead of all of it.
 * The kept set is a superset of what the parser reads (it re-checks every line):
 *   - every non-blank line that does not start with '[' (the parser counts these),
 *   - every line without "GC(" (header, safepoint, stall and pacing lines),
 *   - the first line with "GC(" in the block, and every line with "GC(0) " (where the
 *     parser looks for header lines and JVM restarts),
 *   - lines with a ']' after "GC(" (a decorator block inside the line: lines run together),
 *   - lines where ") " follows "GC(" and precedes (after spaces) one of the words below
 *     ("Pause " and "Concurrent " only on lines ending in a duration; "User=", "Using ",
 *     "GC time " and the block's first "Eden regions: " for the findings, which read the
 *     same text).
 * Returns the number of bytes written; `out` must hold `n` bytes.
 */
#define _GNU_SOURCE
#include <string.h>

#define W(s) {s, sizeof(s) - 1, 0}
#define TIMED(s) {s, sizeof(s) - 1, 1} /* read only when the line ends in a duration */
static const struct { const char *text; unsigned len; int timed; } WORDS[] = {
    TIMED("Pause "), TIMED("Concurrent "), W("y: "), W("Y: "), W("O: "), W("Garbage Collection "),
    W("Minor Collection "), W("Major Collection "), W("PSYoungGen: "), W("DefNew: "), W("ParNew: "),
    W("To-space exhausted"), W("Capacity: "), W("Used: "), W("Min Capacity: "), W("Max Capacity: "),
    W("Soft Max Capacity: "),
    W("User="), W("Using "), W("GC time "), /* CPU times, workers, GC time limit: the findings' facts */
    W("Eden regions: "), /* G1's: names the collector of a log without its header (first per block) */
};
#define EDEN (sizeof WORDS / sizeof WORDS[0]) /* event_after's answer for "Eden regions: " (the last word) */

/* 1 if the line [w, end) ends (before its newline and trailing blanks) with a digit and
 * "ms" or "s", as the parser's pattern for pause and concurrent-phase end lines requires
 * (their start lines, without a duration, are half of a detailed log's event lines). */
static int ends_timed(const char *w, const char *end) {
    if (end > w && end[-1] == '\n')
        end--;
    while (end > w && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (end - w < 2 || end[-1] != 's')
        return 0;
    end--;
    if (end[-1] == 'm')
        end--;
    return end > w && end[-1] >= '0' && end[-1] <= '9';
}

/* Non-zero if a ") " after `p` (inside the line ending at `end`) is followed by an event word
 * (its index + 1), or closes "GC(0" (1). One memchr pass per line; the words are told apart by
 * first letter. */
static unsigned event_after(const char *line, const char *p, const char *end) {
    while ((p = memchr(p, ')', (size_t)(end - p))) != NULL) {
        if (p + 1 < end && p[1] == ' ') {
            if (p - line >= 4 && memcmp(p - 4, "GC(0", 4) == 0)
                return 1;
            const char *w = p + 2;
            while (w < end && *w == ' ')
                w++; /* ZGC's heap table indents its row names */
            for (unsigned i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++) {
                size_t len = WORDS[i].len;
                if (*w == WORDS[i].text[0] && (size_t)(end - w) >= len && memcmp(w, WORDS[i].text, len) == 0
                    && (!WORDS[i].timed || ends_timed(w + len, end)))
                    return i + 1;
            }
        }
        p++;
    }
    return 0;
}

long jvmlab_gclog_filter(const char *in, long n, char *out) {
    const char *p = in, *stop = in + n;
    char *o = out;
    int seen_gc = 0, seen_eden = 0;
    while (p < stop) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        const char *end = nl ? nl + 1 : stop;
        int keep;
        if (*p == '\n') {
            keep = 0;
        } else if (*p != '[') {
            keep = 1;
        } else {
            const char *gc = memmem(p, (size_t)(end - p), "GC(", 3);
            if (gc == NULL) {
                keep = 1;
            } else if (!seen_gc) {
                keep = seen_gc = 1;
            } else {
                /* a ']' after the id: a decorator block follows, e.g. two lines run together by a
                 * cut write; the parser may read a header or safepoint line there */
                unsigned word = event_after(p, gc + 3, end);
                if (word == EDEN) { /* only its presence is read: the first of a block is enough */
                    word = !seen_eden;
                    seen_eden = 1;
                }
                keep = word || memchr(gc, ']', (size_t)(end - gc)) != NULL;
            }
        }
        if (keep) {
            memcpy(o, p, (size_t)(end - p));
            o += end - p;
        }
        p = end;
    }
    return (long)(o - out);
}
