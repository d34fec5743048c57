/* jvmlab GC log event folder (unified logging: G1, Parallel, Serial, single-generation
 * ZGC), built on first use.
 *
 * Reads each block of a unified log and folds its pause, young-generation, ZGC cycle,
 * concurrent phase and heap-table lines straight
 * into the summary figures (the same arithmetic, in the same order, as unified.py and
 * summary.py), so no Python runs per event. It only accepts logs it can read exactly like the
 * Python parser; on anything else (another collector, a safepoint, stall or trigger line, a
 * line not starting with '[', a decimal comma, an odd decorator, a name it has no room for)
 * it returns -1 and the caller reads the whole log again with the Python parser. Header lines
 * (no GC id) where the Python parser looks for them are copied to `out` for it to read.
 * Bounded: fixed-size tables, one pass per block, no allocation.
 */
#define _GNU_SOURCE
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NAMES 64
#define NAME_CHARS 200
#define CAUSES 64
#define GENS 17 /* unified.py's _PENDING_LIMIT + 1 */
#define LINES 4096
#define GC0S 4096
#define WINDOW (256L << 10) /* unified_scan._HEADER_WINDOW */
#define NONE NAN
#define REC 8 /* code (pause name index, or -2 - cause index / -1 for a ZGC cycle, -1000 - name index for
                  a G1 cycle), t, dur, before, after, committed, gid, 1 if to-space exhausted else 0 */
#define G1_CYCLE (-1000.0)

typedef long long i64;
/* what: 0 a pause name (returns its packed kind, cause, failure, collector), 1 a cause, 2 a
 * concurrent phase name, 3 a G1 cycle name (return their index); negative: give up */
typedef i64 (*classify_fn)(i64 what, const char *text, i64 len);

typedef struct { /* strings met, and what the callback said of each */
    i64 n, len[NAMES], val[NAMES], seen[NAMES];
    char text[NAMES][NAME_CHARS];
} table_t;

typedef struct {
    /* clock.MonotonicClock */
    double offset, last_raw, first, last, done_s, run_first, run_offset;
    i64 runs, bases_jvm, bases_first, expect_restart, uptime;
    /* decorators.Timer: -1 not learnt yet, 0 the first block is the uptime in seconds */
    i64 timer_idx;
    /* unified.UnifiedParser: collector 0 none, 1 Parallel, 2 Serial, 3 ZGC, 4 G1; py_collector: the
     * parser reading the copied header lines has one (it reads no events) */
    i64 collector, py_collector, generational, max_gid;
    i64 n_gen, gen_gid[GENS];
    double gen_b[GENS], gen_a[GENS];
    table_t names, causes, phases;
    i64 n_tab, tab_gid[GENS]; /* zgc_table.CycleTables: committed max, before, after, peak */
    double tab[GENS][4];
    i64 n_st, st_gid[GENS]; /* unified.UnifiedParser._starts */
    double st_t[GENS];
    i64 setting_seen[4], cycle_seen; /* Min, Max, Soft Max, (Initial) Capacity of GC lines */
    double setting_mb[4];
    i64 setting_seq[4], header_seen[4], header_seq[4], chunk_no; /* where each was first met */
    i64 cycles_count, phase_count[NAMES];
    double cycles_total, phase_total[NAMES], phase_max[NAMES];
    /* summary.LogSummary, figures.Figures */
    i64 p_count;
    double p_total, p_max, p_min;
    i64 kind_count[8];
    double kind_total[8];
    double first_pause_t, last_pause_t;
    i64 ha_n;
    double ha_total, ha_lo, ha_hi;
    double allocated, promoted, last_ha, alloc_t0, alloc_t1;
    i64 promo_known;
    double f_first, f_last, committed_max, used_max, after_max, young_max, old_max;
    i64 lp_name, lp_gid;
    double lp_t, lp_dur, lp_before, lp_after, lp_committed, lp_yb, lp_ya;
    i64 cause_count[CAUSES];
    double cause_total[CAUSES], cause_max[CAUSES];
    i64 fail_count[CAUSES];
    double fail_total[CAUSES], fail_max[CAUSES];
    table_t cycles; /* G1's "Concurrent Cycle" names (CYCLE events) */
    i64 n_exh, exh_gid[GENS]; /* unified.UnifiedParser._exhausted: "To-space exhausted" by gc id */
    i64 lp_exh, eden_side; /* the last pause had to-space exhausted; an "Eden regions: " line was set aside */
    /* CPU-time and worker-count lines counted here instead of set aside (findings_scan reads
     * nothing else of them): set by the caller, then per call */
    double cpu_min_real; /* findings_scan.CPU_MIN_REAL_S: a pause's CPU times are read from this long */
    i64 cpu_short, workers_seen, workers_n, workers_m;
    /* findings_fold.LogFold.collection's share (set by the caller: fast, tl_room, max_events and
     * the output arrays; per call: their lengths): a record goes to Python only when the fold
     * does more with it than count it, put it on the timelines and tally a young pause */
    i64 fast; /* bit 0: young pauses' example lines are all found; bit 1: other pauses' too */
    i64 last_full, ev_total, max_events, tl_room, fast_events, rec_cap;
    i64 yt_count; /* every young pause (LogFold's e.young, in order) */
    double yt_total, yt_worst, yt_first, yt_last;
    double *pd, *tlp, *tlh; /* every pause's duration (the sketch); timeline points (t, ms), (t, before, after) */
    i64 n_pd, n_tlp, n_tlh;
    i64 n_durs; /* event records (REC doubles each) written by the last call */
    i64 side_len; /* bytes of `side` written by the last call: the lines the findings read */
    i64 plain_at[LINES], plain_end[LINES], gc0[GC0S]; /* scratch of one call */
} fold_t;

static locale_t c_locale;

void jvmlab_fold_init(fold_t *s) {
    if (!c_locale)
        c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    memset(s, 0, sizeof *s);
    s->last_raw = s->first = s->last = s->run_first = NONE;
    s->timer_idx = -1;
    s->p_max = -INFINITY;
    s->p_min = INFINITY;
    s->first_pause_t = s->last_pause_t = NONE;
    s->ha_lo = INFINITY;
    s->ha_hi = -INFINITY;
    s->last_ha = s->alloc_t0 = s->alloc_t1 = NONE;
    s->f_first = s->f_last = s->committed_max = s->used_max = s->after_max = s->young_max = s->old_max = NONE;
    s->lp_name = -1;
    s->lp_t = s->lp_dur = NONE;
    s->yt_worst = s->yt_first = s->yt_last = NONE;
}

static int has(double v) { return !isnan(v); }

/* [p, end)'s first `lit` (n bytes), or NULL: memmem's setup costs more than a whole short line
 * (it was half of this file's time), so memchr hops between candidate first bytes. */
static const char *find(const char *p, const char *end, const char *lit, size_t n) {
    if (end - p < (long)n)
        return NULL;
    const char *last = end - n;
    while (p <= last) {
        p = memchr(p, lit[0], (size_t)(last - p) + 1);
        if (p == NULL)
            return NULL;
        if (memcmp(p, lit, n) == 0)
            return p;
        p++;
    }
    return NULL;
}

/* A number as unified.py's _NUM reads it, decimal point only: \d+(\.\d+)? ; 0 if not one. */
static int number(const char *p, const char *end, double *out) {
    char buf[40];
    size_t n = (size_t)(end - p);
    if (n == 0 || n >= sizeof buf || p[0] < '0' || p[0] > '9' || end[-1] < '0' || end[-1] > '9')
        return 0;
    int dots = 0;
    for (const char *q = p; q < end; q++) {
        if (*q == '.') {
            if (dots++ || q[-1] < '0' || q[-1] > '9')
                return 0;
        } else if (*q < '0' || *q > '9') {
            return 0;
        }
    }
    memcpy(buf, p, n);
    buf[n] = 0;
    *out = strtod_l(buf, NULL, c_locale); /* correctly rounded, as Python's float() */
    return 1;
}

static int unit_mb(char u, double *scale) {
    switch (u) {
    case 'B': *scale = 1.0 / 1048576.0; return 1;
    case 'K': *scale = 1.0 / 1024.0; return 1;
    case 'M': *scale = 1.0; return 1;
    case 'G': *scale = 1024.0; return 1;
    case 'T': *scale = 1048576.0; return 1;
    default: return 0;
    }
}

/* -- clock.MonotonicClock ------------------------------------------------------------- */
static void see(fold_t *s, double t) {
    if (!has(s->first) || t < s->first) {
        s->first = t;
        s->runs = s->runs ? s->runs : 1;
    }
    if (!has(s->run_first) || t < s->run_first)
        s->run_first = t;
    if (!has(s->last) || t > s->last)
        s->last = t;
}

static void new_run(fold_t *s, double last_raw) {
    if (has(s->run_first) && has(s->last)) {
        double start;
        if (s->uptime && s->run_first - s->run_offset < 60.0) {
            start = s->run_first < s->run_offset ? s->run_first : s->run_offset;
            s->bases_jvm++;
        } else {
            start = s->run_first;
            s->bases_first++;
        }
        s->done_s += s->last - start;
    }
    s->offset += last_raw;
    s->run_offset = s->offset;
    s->runs++;
    s->run_first = NONE;
}

static double clock(fold_t *s, double raw) {
    double last_raw = s->last_raw;
    if (raw == last_raw) {
        s->expect_restart = 0;
        return raw + s->offset;
    }
    if (has(last_raw) && (raw < last_raw - 1.0 || (s->expect_restart && raw < last_raw))) {
        new_run(s, last_raw);
        s->last_raw = raw;
    } else if (!has(last_raw) || raw > last_raw) {
        s->last_raw = raw;
    }
    s->expect_restart = 0;
    double t = raw + s->offset;
    see(s, t);
    return t;
}

static void started(fold_t *s, double t) {
    if (has(s->run_first) && t < s->run_first) {
        s->run_first = t;
        if (has(s->first) && t < s->first)
            s->first = t;
    }
}

/* decorators.Timer for a block [deco, deco_end) that starts with '[' and ends with ']':
 * only "[<digits>.<digits>s]..." first blocks (uptime in seconds) are taken. */
static int timer(fold_t *s, const char *deco, const char *deco_end, double *t) {
    const char *close = memmem(deco, (size_t)(deco_end - deco), "][", 2);
    const char *tok = deco + 1, *tok_end = close ? close : deco_end - 1;
    while (tok < tok_end && *tok == ' ')
        tok++;
    while (tok_end > tok && tok_end[-1] == ' ')
        tok_end--;
    double raw;
    if (tok_end - tok < 2 || tok_end[-1] != 's' || !number(tok, tok_end - 1, &raw))
        return 0;
    if (s->timer_idx < 0) {
        if (raw > 1e8)
            return 0; /* epoch based: not an uptime */
        s->timer_idx = 0;
        s->uptime = 1;
    }
    *t = clock(s, raw);
    return 1;
}

/* -- folding (summary.LogSummary._pause, figures.Figures.add) ---------------------------- */
static double pymax(double cur, double v) { return !has(v) ? cur : (!has(cur) || v > cur) ? v : cur; }

static void bump(i64 *count, double *total, double *mx, double ms) {
    (*count)++;
    *total += ms;
    if (ms > *mx)
        *mx = ms;
}

static void fold_pause(fold_t *s, i64 name, i64 gid, i64 info, double t, double dur, double before, double after,
                       double committed, double yb, double ya, int exhausted) {
    int kind = (int)(info & 7), cause = (int)((info >> 3) & 0xff) - 1, failure = (int)((info >> 11) & 0xff) - 1;
    if (exhausted)
        failure = 0; /* linefold.py registers "to-space exhausted" first */
    /* figures */
    if (!has(s->f_first) || t < s->f_first)
        s->f_first = t;
    if (!has(s->f_last) || t > s->f_last)
        s->f_last = t;
    s->lp_name = name;
    s->lp_gid = gid;
    s->lp_t = t;
    s->lp_dur = dur;
    s->lp_before = before;
    s->lp_after = after;
    s->lp_committed = committed;
    s->lp_yb = yb;
    s->lp_ya = ya;
    s->lp_exh = exhausted;
    if (cause >= 0 && (info >> 25 & 1))
        bump(&s->cause_count[cause], &s->cause_total[cause], &s->cause_max[cause], dur);
    if (failure >= 0)
        bump(&s->fail_count[failure], &s->fail_total[failure], &s->fail_max[failure], dur);
    if (has(before) || has(after)) {
        s->committed_max = pymax(s->committed_max, committed);
        s->used_max = pymax(pymax(s->used_max, before), after);
        s->after_max = pymax(s->after_max, after);
        if (has(yb) || has(ya)) {
            s->young_max = pymax(s->young_max, yb);
            if (has(yb) && has(before))
                s->old_max = pymax(s->old_max, before - yb);
            if (has(ya) && has(after))
                s->old_max = pymax(s->old_max, after - ya);
        }
    }
    s->names.seen[name] = 1;
    /* summary */
    s->p_count++;
    s->p_total += dur;
    if (dur > s->p_max)
        s->p_max = dur;
    if (dur < s->p_min)
        s->p_min = dur;
    s->kind_count[kind]++;
    s->kind_total[kind] += dur;
    if (!has(s->first_pause_t))
        s->first_pause_t = t;
    s->last_pause_t = t;
    if (has(after)) {
        s->ha_n++;
        s->ha_total += after;
        if (after < s->ha_lo)
            s->ha_lo = after;
        if (after > s->ha_hi)
            s->ha_hi = after;
        if (has(before) && has(s->last_ha)) {
            double grown = before - s->last_ha;
            if (grown > 0)
                s->allocated += grown;
            s->alloc_t1 = t;
        } else if (!has(s->alloc_t0)) {
            s->alloc_t0 = t;
        }
        s->last_ha = after;
    }
    if (has(yb) && has(ya) && has(before) && has(after) && kind != 2 /* full */) {
        double promoted = (yb - ya) - (before - after);
        s->promoted += 0.0 > promoted ? 0.0 : promoted;
        s->promo_known = 1;
    }
}

/* "b U->a U" or "b U->a U(c U)" ending at `end`, preceded by a space; returns its start. */
static const char *heap_back(const char *lo, const char *end, double *b, double *a, double *c) {
    const char *p = end, *q;
    double scale;
    *c = NONE;
    if (p > lo && p[-1] == ')') { /* (c U) */
        q = p - 1;
        if (q - 1 <= lo || !unit_mb(q[-1], &scale))
            return NULL;
        const char *num_end = q - 1, *num = num_end;
        while (num > lo && ((num[-1] >= '0' && num[-1] <= '9') || num[-1] == '.'))
            num--;
        if (num <= lo || num[-1] != '(' || !number(num, num_end, c))
            return NULL;
        *c *= scale;
        p = num - 1;
    }
    if (p - 1 <= lo || !unit_mb(p[-1], &scale))
        return NULL;
    const char *num_end = p - 1, *num = num_end;
    while (num > lo && ((num[-1] >= '0' && num[-1] <= '9') || num[-1] == '.'))
        num--;
    if (!number(num, num_end, a) || num - 2 <= lo || num[-1] != '>' || num[-2] != '-')
        return NULL;
    *a *= scale;
    p = num - 2;
    if (p - 1 <= lo || !unit_mb(p[-1], &scale))
        return NULL;
    num_end = p - 1;
    num = num_end;
    while (num > lo && ((num[-1] >= '0' && num[-1] <= '9') || num[-1] == '.'))
        num--;
    if (!number(num, num_end, b) || num <= lo || num[-1] != ' ')
        return NULL;
    *b *= scale;
    return num - 1;
}


/* Index of [p, end) in `t`, asking `classify` about a new string; -1 to give up. */
static i64 lookup(table_t *t, i64 what, const char *p, const char *end, classify_fn classify) {
    i64 len = end - p;
    if (len < 0 || len >= NAME_CHARS)
        return -1;
    for (i64 i = 0; i < t->n; i++)
        if (t->len[i] == len && memcmp(t->text[i], p, (size_t)len) == 0)
            return i;
    if (t->n >= NAMES)
        return -1;
    i64 val = classify(what, p, len);
    if (val < 0)
        return -1;
    memcpy(t->text[t->n], p, (size_t)len);
    t->len[t->n] = len;
    t->val[t->n] = val;
    return t->n++;
}

/* A dict of at most GENS - 1 gc ids kept in insertion order (the oldest dropped). */
static int slot(i64 *gids, i64 *n, i64 gid, int insert, double *rows, size_t row_doubles) {
    for (int i = 0; i < *n; i++)
        if (gids[i] == gid)
            return i;
    if (!insert)
        return -1;
    gids[*n] = gid;
    for (size_t k = 0; k < row_doubles; k++)
        rows[(size_t)*n * row_doubles + k] = NONE;
    (*n)++;
    if (*n > GENS - 1) {
        memmove(gids, gids + 1, sizeof(i64) * (GENS - 1));
        memmove(rows, rows + row_doubles, sizeof(double) * row_doubles * (GENS - 1));
        (*n)--;
    }
    return (int)*n - 1;
}

static void unslot(i64 *gids, i64 *n, int i, double *rows, size_t row_doubles) {
    memmove(gids + i, gids + i + 1, sizeof(i64) * (size_t)(*n - i - 1));
    memmove(rows + (size_t)i * row_doubles, rows + (size_t)(i + 1) * row_doubles,
            sizeof(double) * row_doubles * (size_t)(*n - i - 1));
    (*n)--;
}

static double nz(double v) { return has(v) ? v : 0.0; }

/* "<digits>M (" columns of a ZGC heap table row (zgc_table._COL); returns how many (max 8). */
static int columns(const char *p, const char *end, double *cols) {
    int n = 0;
    while (p < end) {
        if (*p >= '0' && *p <= '9') {
            const char *q = p;
            while (q < end && *q >= '0' && *q <= '9')
                q++;
            if (end - q >= 3 && q[0] == 'M' && q[1] == ' ' && q[2] == '(') {
                if (n >= 8 || !number(p, q, &cols[n]))
                    return 9;
                n++;
                p = q + 3;
            } else {
                p = q;
            }
        } else {
            p++;
        }
    }
    return n;
}

/* The end of " NUMms" / " NUMs" at the end of [lo, e): where the number starts, or NULL. */
static const char *duration_back(const char *lo, const char *e, int ms, double *out) {
    const char *num_end = e - (ms ? 2 : 1), *num = num_end;
    if (num_end <= lo)
        return NULL;
    while (num > lo && ((num[-1] >= '0' && num[-1] <= '9') || num[-1] == '.'))
        num--;
    if (num <= lo || num[-1] != ' ' || !number(num, num_end, out))
        return NULL;
    return num;
}

static void fold_at(fold_t *s, double t) {
    if (!has(s->f_first) || t < s->f_first)
        s->f_first = t;
    if (!has(s->f_last) || t > s->f_last)
        s->f_last = t;
}

#define KIND_YOUNG 0 /* events.PAUSE_KINDS (checked on load) */
#define KIND_FULL 2
#define PLAIN_BIT 26 /* a pause name's info: findings_fold.only_counted */

/* One pause (kind >= 0) or cycle (kind -1) for the findings' fold: its timeline points, the
 * young tally and the sketch's durations here; the record for Python unless `plain` (the
 * fold only counts it) and nothing else is pending (examples wanted, a run of full
 * collections open, an evacuation failure). 0 to give up. */
static int record(fold_t *s, double *durs, i64 durs_cap, double code, double t, double dur, double before,
                  double after, double committed, i64 gid, int exhausted, int kind, int plain) {
    if ((s->n_durs + 1) * REC > durs_cap || s->n_pd >= s->rec_cap || s->n_tlp >= s->rec_cap ||
        s->n_tlh >= s->rec_cap || ++s->ev_total > s->max_events)
        return 0; /* beyond findings_fold.MAX_EVENTS: the Python parser's */
    if (has(t) && s->tl_room > 0) { /* LogFold._timeline */
        if (kind >= 0 && has(dur)) {
            s->tlp[2 * s->n_tlp] = t;
            s->tlp[2 * s->n_tlp++ + 1] = dur;
            s->tl_room--;
        }
        if (has(after)) {
            s->tlh[3 * s->n_tlh] = t;
            s->tlh[3 * s->n_tlh + 1] = before;
            s->tlh[3 * s->n_tlh++ + 2] = after;
            s->tl_room--;
        }
    }
    if (kind >= 0) {
        s->pd[s->n_pd++] = dur;
        if (kind == KIND_YOUNG) { /* Tally.add */
            s->yt_count++;
            s->yt_total += dur;
            if (!has(s->yt_worst) || dur > s->yt_worst)
                s->yt_worst = dur;
            if (!has(s->yt_first) || t < s->yt_first)
                s->yt_first = t;
            if (!has(s->yt_last) || t > s->yt_last)
                s->yt_last = t;
        }
        int quiet = plain && !exhausted && !s->last_full && (s->fast >> (kind == KIND_YOUNG ? 0 : 1) & 1);
        s->last_full = kind == KIND_FULL;
        if (quiet) {
            s->fast_events++;
            return 1;
        }
    } else if (plain) {
        s->fast_events++;
        return 1;
    }
    double *r = durs + s->n_durs++ * REC;
    r[0] = code;
    r[1] = t;
    r[2] = dur;
    r[3] = before;
    r[4] = after;
    r[5] = committed;
    r[6] = (double)gid;
    r[7] = exhausted ? 1.0 : 0.0;
    return 1;
}

static int zgc_collection(fold_t *s, const char *deco, const char *deco_end, i64 gid, const char *w, const char *e,
                          classify_fn classify, double *durs, i64 durs_cap) {
    const char *p = e, *cause = w + 20; /* after "Garbage Collection (" */
    double zdur = NONE, b = NONE, a = NONE, v;
    if (e - w < 21 || w[19] != '(')
        return 0;
    if (p[-1] == 's') {
        const char *q = duration_back(cause, p, 0, &v);
        if (q == NULL)
            return 0;
        zdur = v;
        p = q - 1;
    }
    if (p[-1] == ')' && p[-2] == '%') { /* " bM(p%)->aM(p%)" */
        const char *q = p - 2;
        while (q > cause && q[-1] >= '0' && q[-1] <= '9')
            q--;
        if (q == p - 2 || q[-1] != '(' || q[-2] != 'M')
            return 0;
        const char *an = q - 2, *a0 = an;
        while (a0 > cause && ((a0[-1] >= '0' && a0[-1] <= '9') || a0[-1] == '.'))
            a0--;
        if (!number(a0, an, &a) || a0[-1] != '>' || a0[-2] != '-' || a0[-3] != ')' || a0[-4] != '%')
            return 0;
        q = a0 - 4;
        const char *pct = q;
        while (q > cause && q[-1] >= '0' && q[-1] <= '9')
            q--;
        if (q == pct || q[-1] != '(' || q[-2] != 'M')
            return 0;
        const char *bn = q - 2, *b0 = bn;
        while (b0 > cause && ((b0[-1] >= '0' && b0[-1] <= '9') || b0[-1] == '.'))
            b0--;
        if (!number(b0, bn, &b) || b0[-1] != ' ')
            return 0;
        p = b0 - 1;
    }
    if (p <= cause || p[-1] != ')' || memchr(cause, '%', (size_t)(p - cause)) || memchr(cause, '>', (size_t)(p - cause)))
        return 0; /* the name's parentheses are not plain: the Python parser's */
    const char *cause_end = p - 1;
    double t;
    if (!timer(s, deco, deco_end, &t))
        return 0;
    s->collector = 3;
    if (!has(b) && !has(zdur)) {
        int i = slot(s->st_gid, &s->n_st, gid, 1, s->st_t, 1);
        s->st_t[i] = t;
        return 1;
    }
    double start = NONE, committed = NONE, before = NONE, after = NONE, peak = NONE, dur = NONE;
    int i = slot(s->st_gid, &s->n_st, gid, 0, s->st_t, 1);
    if (i >= 0) {
        start = s->st_t[i];
        unslot(s->st_gid, &s->n_st, i, s->st_t, 1);
    }
    i = slot(s->tab_gid, &s->n_tab, gid, 0, &s->tab[0][0], 4);
    if (i >= 0) {
        committed = s->tab[i][0];
        before = s->tab[i][1];
        after = s->tab[i][2];
        peak = s->tab[i][3];
        unslot(s->tab_gid, &s->n_tab, i, &s->tab[0][0], 4);
    }
    if (has(zdur)) {
        dur = zdur * 1000.0;
        started(s, t - zdur);
    } else if (has(start)) {
        dur = (t - start) * 1000.0;
    }
    if (has(b)) {
        before = b;
        after = a;
    }
    /* figures.add and summary.add of a CYCLE event */
    fold_at(s, t);
    double code = -1.0;
    int plain = 1;
    if (cause_end > cause) {
        i64 c = lookup(&s->causes, 1, cause, cause_end, classify);
        if (c < 0)
            return 0;
        plain = (int)(s->causes.val[c] >> PLAIN_BIT & 1);
        if ((c = s->causes.val[c] & 0xffff) >= CAUSES)
            return 0;
        bump(&s->cause_count[c], &s->cause_total[c], &s->cause_max[c], nz(dur));
        code = -2.0 - (double)c;
    }
    if (!record(s, durs, durs_cap, code, t, dur, before, after, committed, gid, 0, -1, plain))
        return 0;
    if (has(before) || has(after)) {
        s->committed_max = pymax(s->committed_max, committed);
        s->used_max = pymax(pymax(pymax(s->used_max, before), after), peak);
        s->after_max = pymax(s->after_max, after);
    }
    s->cycle_seen = 1;
    s->cycles_count++;
    s->cycles_total += nz(dur);
    if (has(after)) {
        s->ha_n++;
        s->ha_total += after;
        if (after < s->ha_lo)
            s->ha_lo = after;
        if (after > s->ha_hi)
            s->ha_hi = after;
    }
    return 1;
}

/* "Concurrent <what> <dur>ms" of ZGC (unified.py _concurrent; no heap figures) */
static int concurrent(fold_t *s, const char *deco, const char *deco_end, i64 gid, const char *w, const char *e,
                      classify_fn classify, double *durs, i64 durs_cap) {
    double ms, t;
    const char *what = w + 11;
    if (e[-1] != 's' || e[-2] != 'm' || (s->collector != 3 && s->collector != 4))
        return 0;
    const char *num = duration_back(what, e, 1, &ms);
    if (num == NULL || memmem(what, (size_t)(num - what), "->", 2) != NULL)
        return 0;
    const char *what_end = num - 1;
    if (memchr(what, ':', (size_t)(what_end - what)))
        return 1; /* figures, not a phase */
    int cycle = (what_end - what >= 5 && memcmp(what, "Cycle", 5) == 0) || (what_end - what >= 10 &&
        memcmp(what, "Mark Cycle", 10) == 0) || (what_end - what >= 10 && memcmp(what, "Undo Cycle", 10) == 0);
    if (cycle && s->collector != 4)
        return 0;
    const char *cut = memmem(what, (size_t)(what_end - what), " (", 2);
    if (!timer(s, deco, deco_end, &t))
        return 0;
    started(s, t - ms / 1000.0);
    if (cycle) { /* G1's whole cycle (unified.py _concurrent): a CYCLE event named "Concurrent " + what */
        i64 cy = lookup(&s->cycles, 3, w, what_end, classify);
        if (cy < 0 || !record(s, durs, durs_cap, G1_CYCLE - (double)cy, t, ms, NONE, NONE, NONE, gid, 0, -1, 1))
            return 0;
        fold_at(s, t);
        s->cycles.seen[cy] = 1;
        s->cycles_count++;
        s->cycles_total += ms;
        return 1;
    }
    i64 ph = lookup(&s->phases, 2, w, cut ? cut : what_end, classify); /* "Concurrent " + bare_phase */
    if (ph < 0)
        return 0;
    fold_at(s, t);
    bump(&s->phase_count[ph], &s->phase_total[ph], &s->phase_max[ph], ms);
    s->phases.seen[ph] = 1;
    return 1;
}

/* A ZGC heap table row or capacity setting (unified.py _zgc_heap, zgc_table.py) */
static int zgc_heap(fold_t *s, i64 gid, const char *w, const char *e, i64 seq) {
    const char *v = w;
    while (v < e && *v == ' ')
        v++;
    int capacity = e - v >= 10 && memcmp(v, "Capacity: ", 10) == 0;
    int used = e - v >= 6 && memcmp(v, "Used: ", 6) == 0;
    if (capacity || used) {
        double cols[8];
        if (columns(v, e, cols) != 6)
            return 1; /* not a whole-heap row; no setting either */
        int i = slot(s->tab_gid, &s->n_tab, gid, 1, &s->tab[0][0], 4);
        double *row = s->tab[i];
        if (capacity) {
            double m = cols[0];
            for (int k = 1; k < 6; k++)
                if (cols[k] > m)
                    m = cols[k];
            row[0] = !has(row[0]) ? m : (m > row[0] ? m : row[0]);
        } else {
            if (!has(row[1]))
                row[1] = cols[0];
            row[2] = cols[3];
            row[3] = !has(row[3]) ? cols[4] : (cols[4] > row[3] ? cols[4] : row[3]);
        }
        return 1;
    }
    static const char *const KEYS[] = {"Min Capacity: ", "Max Capacity: ", "Soft Max Capacity: "};
    for (int k = 0; k < 3; k++) {
        size_t len = strlen(KEYS[k]);
        if ((size_t)(e - w) > len && memcmp(w, KEYS[k], len) == 0) {
            const char *p = w + len, *q = p;
            double mb;
            while (q < e && ((*q >= '0' && *q <= '9') || *q == '.'))
                q++;
            if (q >= e || *q != 'M' || !number(p, q, &mb))
                return 0;
            if (!s->setting_seen[k]) {
                s->setting_seen[k] = 1;
                s->setting_mb[k] = mb;
                s->setting_seq[k] = seq;
            }
            return 1;
        }
    }
    return 0;
}

/* The ")" of GC(n) is at `w - 2`; `w` starts the message, `end` is the line's end (no '\n').
 * Returns 1 when the line was read or is not an event line, 0 to give up. */
static int event_line(fold_t *s, const char *in, const char *deco, const char *deco_end, i64 gid, const char *w, const char *end,
                      double *durs, i64 durs_cap, classify_fn classify) {
    size_t left = (size_t)(end - w);
#define STARTS(lit) (left >= sizeof(lit) - 1 && memcmp(w, lit, sizeof(lit) - 1) == 0)
    int pause = STARTS("Pause ");
    int gen = STARTS("PSYoungGen: ") || STARTS("DefNew: ");
    int conc = STARTS("Concurrent "), zcoll = STARTS("Garbage Collection ");
    int heap = STARTS("Min Capacity: ") || STARTS("Max Capacity: ") || STARTS("Soft Max Capacity: ");
    int exhausted = STARTS("To-space exhausted");
    if (!pause && !gen && !conc && !zcoll && !heap && !exhausted) {
        if (STARTS("y: ") || STARTS("Y: ") || STARTS("O: ") || STARTS("Minor Collection ") ||
            STARTS("Major Collection ") || STARTS("ParNew: "))
            return 0;
        const char *v = w;
        while (v < end && *v == ' ')
            v++;
        size_t rest = (size_t)(end - v);
        if (!((rest >= 10 && memcmp(v, "Capacity: ", 10) == 0) || (rest >= 6 && memcmp(v, "Used: ", 6) == 0)))
            return 1;
        heap = 1;
    }
    /* msg = the rest, rstripped (the scan's [ \t]*$; any other trailing blank: give up) */
    const char *e = end;
    while (e > w && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    if (e > w && (unsigned char)e[-1] < ' ')
        return 0;
    if (pause || conc) {
        /* only lines ending in a digit and "ms" or "s" are event lines */
        if (!(e - w >= 2 && e[-1] == 's' &&
              ((e[-2] >= '0' && e[-2] <= '9') || (e[-2] == 'm' && e - w >= 3 && e[-3] >= '0' && e[-3] <= '9'))))
            return 1;
    }
    /* unified.UnifiedParser._line preamble */
    if (gid < s->max_gid) {
        if (gid == 0)
            s->expect_restart = 1;
        s->max_gid = gid;
    } else if (gid > s->max_gid) {
        s->max_gid = gid;
    }
    if (exhausted) { /* G1 JDK 9-17, before its pause line: a dict of gc ids, the oldest dropped */
        int i;
        for (i = 0; i < s->n_exh && s->exh_gid[i] != gid; i++)
            ;
        if (i == s->n_exh)
            s->exh_gid[s->n_exh++] = gid;
        if (s->n_exh > GENS - 1) {
            memmove(s->exh_gid, s->exh_gid + 1, sizeof(i64) * (GENS - 1));
            s->n_exh--;
        }
        return 1;
    }
    if (conc)
        return concurrent(s, deco, deco_end, gid, w, e, classify, durs, durs_cap);
    if (zcoll)
        return zgc_collection(s, deco, deco_end, gid, w, e, classify, durs, durs_cap);
    if (heap)
        return zgc_heap(s, gid, w, e, (s->chunk_no << 32) | (i64)(w - in));
    if (gen) {
        const char *p = memchr(w, ':', (size_t)(e - w)) + 2, *q = p;
        double b, a, scale, scale2;
        while (q < e && ((*q >= '0' && *q <= '9') || *q == '.'))
            q++;
        if (q >= e || !number(p, q, &b) || !unit_mb(*q, &scale))
            return 0;
        q++;
        if (q < e && *q == '(') { /* (capacity), not kept */
            const char *r = memchr(q, ')', (size_t)(e - q));
            if (r == NULL)
                return 0;
            const char *n2 = q + 1;
            while (n2 < r - 1 && ((*n2 >= '0' && *n2 <= '9') || *n2 == '.'))
                n2++;
            double ignored;
            if (n2 != r - 1 || !number(q + 1, n2, &ignored) || !unit_mb(*n2, &scale2))
                return 0;
            q = r + 1;
        }
        if (e - q < 2 || q[0] != '-' || q[1] != '>')
            return 0;
        p = q = q + 2;
        while (q < e && ((*q >= '0' && *q <= '9') || *q == '.'))
            q++;
        if (q >= e || !number(p, q, &a) || !unit_mb(*q, &scale2))
            return 0;
        if (s->collector == 0)
            s->collector = w[0] == 'P' ? 1 : 2;
        b *= scale;
        a *= scale2;
        int i;
        for (i = 0; i < s->n_gen && s->gen_gid[i] != gid; i++)
            ;
        if (i == s->n_gen)
            s->gen_gid[s->n_gen++] = gid; /* a new key goes last; an old one keeps its place */
        s->gen_b[i] = b;
        s->gen_a[i] = a;
        if (s->n_gen > GENS - 1) { /* drop the oldest */
            memmove(s->gen_gid, s->gen_gid + 1, sizeof(i64) * (GENS - 1));
            memmove(s->gen_b, s->gen_b + 1, sizeof(double) * (GENS - 1));
            memmove(s->gen_a, s->gen_a + 1, sizeof(double) * (GENS - 1));
            s->n_gen--;
        }
        return 1;
    }
    /* "Pause <what>[ b U->a U[(c U)]] <dur>ms" */
    if (e[-1] != 's' || e[-2] != 'm')
        return 0;
    const char *num_end = e - 2, *num = num_end;
    while (num > w && ((num[-1] >= '0' && num[-1] <= '9') || num[-1] == '.'))
        num--;
    double dur, before = NONE, after = NONE, committed = NONE;
    if (!number(num, num_end, &dur) || num[-1] != ' ')
        return 0;
    const char *what = w + 6, *what_end = num - 1;
    if (what_end <= what)
        return 0;
    if (what_end > what && (what_end[-1] == ')' || (what_end[-1] >= 'B' && what_end[-1] <= 'T'))) {
        const char *h = heap_back(what, what_end, &before, &after, &committed);
        if (h == NULL) { /* the name ends like a heap figure but is not one: not this folder's */
            if (memmem(what, (size_t)(what_end - what), "->", 2) != NULL)
                return 0;
        } else {
            what_end = h;
        }
    } else if (memmem(what, (size_t)(what_end - what), "->", 2) != NULL) {
        return 0;
    }
    if (what_end <= what || what_end - what >= NAME_CHARS)
        return 0;
    i64 name = lookup(&s->names, 0, what, what_end, classify);
    if (name < 0)
        return 0;
    i64 info = s->names.val[name];
    if (info >> 23 & 1)
        s->generational = 1;
    double yb = NONE, ya = NONE, t;
    int exh = 0;
    for (int i = 0; i < s->n_exh; i++) {
        if (s->exh_gid[i] == gid) {
            memmove(s->exh_gid + i, s->exh_gid + i + 1, sizeof(i64) * (size_t)(s->n_exh - i - 1));
            s->n_exh--;
            exh = 1;
            break;
        }
    }
    for (int i = 0; i < s->n_gen; i++) {
        if (s->gen_gid[i] == gid) {
            yb = s->gen_b[i];
            ya = s->gen_a[i];
            memmove(s->gen_gid + i, s->gen_gid + i + 1, sizeof(i64) * (size_t)(s->n_gen - i - 1));
            memmove(s->gen_b + i, s->gen_b + i + 1, sizeof(double) * (size_t)(s->n_gen - i - 1));
            memmove(s->gen_a + i, s->gen_a + i + 1, sizeof(double) * (size_t)(s->n_gen - i - 1));
            s->n_gen--;
            break;
        }
    }
    if (!timer(s, deco, deco_end, &t))
        return 0;
    started(s, t - dur / 1000.0);
    if (s->collector == 0)
        s->collector = (info >> 19) & 0xf;
    if (s->collector < 1 || s->collector > 4)
        return 0; /* cycles made of phases (Shenandoah, CMS, unknown): the Python parser's */
    if (!record(s, durs, durs_cap, (double)name, t, dur, before, after, committed, gid, exh, (int)(info & 7),
                (int)(info >> PLAIN_BIT & 1)))
        return 0;
    fold_pause(s, name, gid, info, t, dur, before, after, committed, yb, ya, exh);
    return 1;
#undef STARTS
}

static int contains(const char *p, const char *end, const char *needle) {
    return memmem(p, (size_t)(end - p), needle, strlen(needle)) != NULL;
}

/* A line without a GC id: gives up on the kinds the Python parser reads anywhere in a log,
 * and follows its rule for "Using ..." (the collector). */
static int plain_line(fold_t *s, const char *p, const char *end, int before_gc) {
    static const char *const RECURRING[] = {"Allocation Stall (", "Relocation Stall (", "Safepoint \"",
                                            "Total time for which", "<total>", "Trigger"};
    for (unsigned i = 0; i < sizeof RECURRING / sizeof RECURRING[0]; i++)
        if (contains(p, end, RECURRING[i]))
            return 0;
    const char *u = memmem(p, (size_t)(end - p), "Using ", 6);
    if (u == NULL)
        return 1;
    if (memmem(u + 6, (size_t)(end - u - 6), "Using ", 6) != NULL)
        return 0; /* which one the Python parser reads: keep it simple */
    const char *b = u;
    while (b > p && (b[-1] == ' ' || b[-1] == '\t'))
        b--;
    if (b == p || b[-1] != ']')
        return 1; /* not right after the decorators: not a header line */
    const char *name = u + 6;
    size_t left = (size_t)(end - name);
    if (left >= 5 && memcmp(name, "The Z", 5) == 0) {
        if (left < 23 || memcmp(name, "The Z Garbage Collector", 23) != 0)
            return 1; /* not a name the Python parser knows: nothing */
        if (!before_gc && s->collector != 3)
            return 0; /* only read where headers are looked for */
        s->collector = 3;
        if (before_gc)
            s->py_collector = 3; /* else it may be outside the header regions: unknown, left unset */
        return 1;
    }
    static const char *const NAMES_[] = {"G1", "Parallel", "Serial", "Shenandoah", "Concurrent Mark", "Epsilon"};
    for (unsigned i = 0; i < sizeof NAMES_ / sizeof NAMES_[0]; i++) {
        size_t len = strlen(NAMES_[i]);
        if (left >= len && memcmp(name, NAMES_[i], len) == 0) {
            if (s->collector != 0 && s->py_collector == 0)
                return 0; /* the reader of header lines would take it, the Python parser not */
            if (s->collector == 0) {
                if (!before_gc || i > 2)
                    return 0; /* not where headers are looked for, or not this folder's collector */
                s->collector = s->py_collector = i == 0 ? 4 : i;
            }
            return 1;
        }
    }
    return 1;
}

long jvmlab_fold_size(void) { return (long)sizeof(fold_t); }

/* `digits` at *p (at most 9), moved past; -1 if none */
static i64 digits(const char **p, const char *end) {
    const char *q = *p;
    i64 v = 0;
    while (q < end && *q >= '0' && *q <= '9' && q - *p < 10)
        v = v * 10 + (*q++ - '0');
    if (q == *p || q - *p > 9)
        return -1;
    *p = q;
    return v;
}

/* "<num><lit>" at *p (a number as number() reads it), moved past; 0 if not */
static int num_then(const char **p, const char *end, const char *lit, double *out) {
    const char *q = *p;
    size_t n = strlen(lit);
    while (q < end && ((*q >= '0' && *q <= '9') || *q == '.'))
        q++;
    if ((size_t)(end - q) < n || memcmp(q, lit, n) != 0 || !number(*p, q, out))
        return 0;
    *p = q + n;
    return 1;
}

/* A line findings_scan would only count: "User=<n>s Sys=<n>s Real=<n>s" (nothing else in its
 * message, no '=' in its decorators: the one match of _TIMES_UNIFIED) with Real under the CPU
 * rule's minimum (cpu.pauses += 1, nothing else), or "Using <n> workers of <m>" with no other
 * "Using " (the largest n and m are kept). 1 when counted here. */
static int counted(fold_t *s, const char *p, const char *deco_end, const char *msg, const char *end) {
    const char *q = msg;
    while (end > msg && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (memchr(p, '=', (size_t)(deco_end - p)) != NULL || find(p, deco_end, "Using ", 6) != NULL)
        return 0;
    if (end - q >= 5 && memcmp(q, "User=", 5) == 0) {
        double user, sys, real;
        q += 5;
        if (!num_then(&q, end, "s Sys=", &user) || !num_then(&q, end, "s Real=", &sys) ||
            !num_then(&q, end, "s", &real) || q != end || !(real < s->cpu_min_real))
            return 0;
        s->cpu_short++;
        return 1;
    }
    if (end - q < 6 || memcmp(q, "Using ", 6) != 0)
        return 0;
    q += 6;
    i64 n = digits(&q, end);
    if (n < 0 || end - q < 12 || memcmp(q, " workers of ", 12) != 0)
        return 0;
    q += 12;
    i64 m = digits(&q, end);
    if (m < 0 || (q < end && *q >= '0' && *q <= '9') || find(q, end, "Using ", 6) != NULL)
        return 0;
    s->workers_n = !s->workers_seen || n > s->workers_n ? n : s->workers_n;
    s->workers_m = !s->workers_seen || m > s->workers_m ? m : s->workers_m;
    s->workers_seen = 1;
    return 1;
}

/* 1 if the findings read this GC-id line (gclog.findings_fold, findings_scan): CPU times, worker
 * counts (unless counted here), the GC time limit, G1's region lines, or a warning/error level
 * in its decorators. Lines of GC(0) are always set aside: findings_fold looks for "GC(0) " (a
 * JVM's start) in what it is given. */
static int side_line(fold_t *s, const char *p, const char *deco_end, i64 gid, const char *msg, const char *end) {
    size_t left = (size_t)(end - msg);
    for (const char *b = p; (b = memchr(b, '[', (size_t)(deco_end - b))) != NULL; b++) /* "[warning", "[error" */
        if ((deco_end - b >= 8 && memcmp(b, "[warning", 8) == 0) || (deco_end - b >= 6 && memcmp(b, "[error", 6) == 0))
            return 1;
    if ((left >= 5 && memcmp(msg, "User=", 5) == 0) || (left >= 6 && memcmp(msg, "Using ", 6) == 0))
        return gid == 0 || !counted(s, p, deco_end, msg, end);
    if (left >= 8 && memcmp(msg, "GC time ", 8) == 0)
        return 1;
    if (left >= 14 && memcmp(msg, "Eden regions: ", 14) == 0 && (!s->eden_side || gid == 0)) {
        s->eden_side = 1; /* names G1 in a log without its header: the first one is enough (and those of
                             GC(0), where findings_fold looks for a JVM's start) */
        return 1;
    }
    return 0;
}

long jvmlab_gclog_fold(fold_t *s, const char *in, long n, char *out, double *durs, long durs_cap,
                       classify_fn classify, char *side) {
    const char *p = in, *stop = in + n, *first_gc = NULL;
    i64 *plain_at = s->plain_at, *plain_end = s->plain_end, *gc0 = s->gc0;
    long n_plain = 0, n_gc0 = 0;
    s->n_durs = s->n_pd = s->n_tlp = s->n_tlh = s->fast_events = 0;
    s->rec_cap = durs_cap / REC;
    s->side_len = 0;
    s->cpu_short = s->workers_seen = 0;
    s->chunk_no++;
    if (n >= (1L << 31) || !c_locale || memchr(in, '\r', (size_t)n))
        return -1;
    unsigned long long high = 0, word; /* any byte >= 0x80: character offsets differ from byte offsets */
    long i8 = 0;
    for (; i8 + 8 <= n; i8 += 8) {
        memcpy(&word, in + i8, 8);
        high |= word;
    }
    for (; i8 < n; i8++)
        high |= (unsigned char)in[i8];
    if (high & 0x8080808080808080ULL)
        return -1;
    while (p < stop) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        const char *end = nl ? nl : stop;
        if (p == end) {
            p = end + 1;
            continue;
        }
        if (*p != '[')
            return -1; /* a line the Python parser counts as not understood */
        const char *gc = find(p, end, "GC(", 3);
        if (gc == NULL) {
            if (n_plain >= LINES || !plain_line(s, p, end, first_gc == NULL))
                return -1;
            plain_at[n_plain] = p - in;
            plain_end[n_plain++] = (nl ? nl + 1 : stop) - in;
            memcpy(side + s->side_len, p, (size_t)((nl ? nl + 1 : stop) - p)); /* every plain line: few */
            s->side_len += (nl ? nl + 1 : stop) - p;
        } else {
            if (first_gc == NULL)
                first_gc = gc;
            if (memchr(p, ')', (size_t)(gc - p)) || find(gc + 3, end, "GC(", 3) ||
                memchr(gc, ']', (size_t)(end - gc)))
                return -1; /* where the Python scan could read this line differently */
            const char *d = gc + 3;
            i64 gid = 0;
            while (d < end && *d >= '0' && *d <= '9' && d - gc < 20)
                gid = gid * 10 + (*d++ - '0');
            if (d < end && *d >= '0' && *d <= '9')
                return -1; /* an id too long for this folder */
            if (d > gc + 3 && d + 1 < end && d[0] == ')' && d[1] == ' ') {
                if (gc[3] == '0' && d == gc + 4) {
                    if (n_gc0 >= GC0S)
                        return -1;
                    gc0[n_gc0++] = gc - in;
                }
                const char *deco_end = gc;
                while (deco_end > p && (deco_end[-1] == ' ' || deco_end[-1] == '\t'))
                    deco_end--;
                if (deco_end[-1] == ']' &&
                    !event_line(s, in, p, deco_end, gid, d + 2, end, durs, durs_cap, classify))
                    return -1;
                if (side_line(s, p, deco_end, gid, d + 2, end)) {
                    memcpy(side + s->side_len, p, (size_t)((nl ? nl + 1 : stop) - p));
                    s->side_len += (nl ? nl + 1 : stop) - p;
                }
            } else if (d < end && *d == ')') {
                return -1;
            }
        }
        p = nl ? nl + 1 : stop;
    }
    /* copy the plain lines inside unified_scan.header_spans */
    char *o = out;
    long span_lo = 0, span_hi = first_gc ? first_gc - in : n;
    long g = 0, prev_hi = span_hi;
    for (long i = 0; i < n_plain; i++) {
        long at = (long)plain_at[i], to = (long)plain_end[i];
        while (at >= span_hi && g < n_gc0) { /* the next span: before the next GC(0) */
            long pos = (long)gc0[g++];
            if (pos < (first_gc - in))
                continue;
            span_lo = pos - WINDOW > prev_hi ? pos - WINDOW : prev_hi;
            span_hi = prev_hi = pos;
        }
        if (at >= span_hi)
            continue;
        if (at < span_lo) {
            if (to > span_lo)
                return -1; /* a span starts inside this line */
            continue;
        }
        static const char *const FORMS[] = {"Min Capacity: ", "Max Capacity: ", "Heap Min Capacity: ",
                                            "Heap Max Capacity: "};
        for (int form = 0; form < 4; form++) { /* a heap setting the Python parser reads */
            const char *f = in + at, *line_end = in + to;
            int k = form & 1;
            while ((f = memmem(f, (size_t)(line_end - f), FORMS[form], strlen(FORMS[form]))) != NULL) {
                const char *b = f;
                while (b > in + at && (b[-1] == ' ' || b[-1] == '\t'))
                    b--;
                f += strlen(FORMS[form]);
                if (b == in + at || b[-1] != ']')
                    continue;
                const char *r = f;
                double mb;
                while (r < line_end && ((*r >= '0' && *r <= '9') || *r == '.'))
                    r++;
                if (r >= line_end || !number(f, r, &mb) || !(*r == 'M' || (form >= 2 && unit_mb(*r, &mb))))
                    return -1; /* a value the Python parser may not read: keep it simple */
                if (!s->header_seen[k]) {
                    s->header_seen[k] = 1;
                    s->header_seq[k] = (s->chunk_no << 32) | at;
                }
            }
        }
        memcpy(o, in + at, (size_t)(to - at));
        o += to - at;
    }
    return (long)(o - out);
}
