import java.util.Arrays;

/**
 * jvmlab built-in workload "tlbsort": memory-locality benchmark for page-size and TLB
 * settings (-XX:+UseLargePages, -XX:+UseTransparentHugePages, NUMA, ...).
 *
 * Fills an int[] of N MiB from a seeded xorshift generator. With --walk-m W (millions), a walk
 * phase then makes W million dependent random reads over the whole array: each index comes from
 * the value just read (mixed with the step number, so the walk never falls into a short cycle),
 * so every read waits for the one before: with 4 KiB pages nearly every read misses the TLB and
 * pays a page walk, with 2 MiB pages (THP) the TLB covers far more. It prints walk_ms and
 * walk_ns (ns per access): the cost of one access, independent of how long the phase ran. A
 * short untimed walk first lets the JIT compile the loop (on-stack replacement).
 *
 * Then it sorts a copy of the first --sort-mb MiB (default: all of it) with an own heap sort
 * (random access all over the array: TLB- and cache-hostile) and the same data with
 * Arrays.sort (mostly sequential: locality-friendly); --sort-mb 0 skips the sorts. Each
 * phase's in-process time is printed as a jvmlab-metric line (fill_ms, walk_ms, walk_ns,
 * heapsort_ms, arrayssort_ms); a checksum is printed so the JIT cannot discard the work, and
 * both sorts must agree (exit 1 if not).
 *
 * Usage: JvmlabTlbSort [--mb N] [--seed S] [--walk-m W] [--sort-mb M]   (defaults 64, 42, 0, N)
 */
public class JvmlabTlbSort {
    public static void main(String[] args) {
        int mb = 64;
        long seed = 42L;
        int walkM = 0;
        int sortMb = -1;
        try {
            for (int i = 0; i < args.length; i++) {
                if ("--mb".equals(args[i]) && i + 1 < args.length) {
                    mb = Integer.parseInt(args[++i]);
                } else if ("--seed".equals(args[i]) && i + 1 < args.length) {
                    seed = Long.parseLong(args[++i]);
                } else if ("--walk-m".equals(args[i]) && i + 1 < args.length) {
                    walkM = Integer.parseInt(args[++i]);
                } else if ("--sort-mb".equals(args[i]) && i + 1 < args.length) {
                    sortMb = Integer.parseInt(args[++i]);
                } else {
                    usage();
                }
            }
        } catch (NumberFormatException e) {
            usage();
        }
        if (sortMb < 0) {
            sortMb = mb;
        }
        if (mb < 1 || mb > 2047 || walkM < 0 || walkM > 10000 || sortMb > mb) {
            System.err.println("--mb must be 1..2047, --walk-m 0..10000, --sort-mb 0..mb");
            System.exit(2);
        }
        int n = mb * (1024 * 1024 / 4);

        long t0 = System.nanoTime();
        int[] data = new int[n];
        fill(data, seed);
        long t1 = System.nanoTime();
        metric("fill_ms", (t1 - t0) / 1e6, "ms");

        long walked = 0;
        if (walkM > 0) {
            long steps = walkM * 1_000_000L;
            walked = walk(data, Math.min(steps / 10, 2_000_000L), 1L << 40);  // JIT warm-up, untimed
            long t2 = System.nanoTime();
            walked += walk(data, steps, 0L);
            long t3 = System.nanoTime();
            metric("walk_ms", (t3 - t2) / 1e6, "ms");
            metric("walk_ns", (double) (t3 - t2) / steps, "ns");
        }

        long sum = walked;
        if (sortMb > 0) {
            int m = sortMb * (1024 * 1024 / 4);
            int[] copy = Arrays.copyOf(data, m);
            long t4 = System.nanoTime();
            heapSort(copy);
            long t5 = System.nanoTime();
            metric("heapsort_ms", (t5 - t4) / 1e6, "ms");

            int[] part = m == n ? data : Arrays.copyOf(data, m);
            long t6 = System.nanoTime();
            Arrays.sort(part);
            long t7 = System.nanoTime();
            metric("arrayssort_ms", (t7 - t6) / 1e6, "ms");

            if (!Arrays.equals(part, copy)) {
                System.err.println("heap sort and Arrays.sort disagree: bug in the workload");
                System.exit(1);
            }
            sum = checksum(part) + walked;
        }
        System.out.println("tlbsort mb=" + mb + " seed=" + seed + (walkM > 0 ? " walk_m=" + walkM : "")
                + " sort_mb=" + sortMb + " ints=" + n + " checksum=" + sum);
    }

    static void usage() {
        System.err.println("usage: JvmlabTlbSort [--mb N] [--seed S] [--walk-m W] [--sort-mb M]");
        System.exit(2);
    }

    /**
     * {@code steps} dependent random reads over {@code a}: the next index is the value just
     * read, mixed with the step number (a walk on a fixed random map would fall into a cycle of
     * a few thousand elements, which lives in the cache) and scaled to the array by a
     * multiply-high (no modulo bias, any length). Returns the sum of what it read.
     */
    static long walk(int[] a, long steps, long salt) {
        long n = a.length;
        int i = 0;
        long sum = 0;
        for (long s = 0; s < steps; s++) {
            int v = a[i];
            sum += v;
            long x = (v ^ (s + salt) * 0x9E3779B97F4A7C15L) & 0xFFFFFFFFL;
            i = (int) ((x * n) >>> 32);
        }
        return sum;
    }

    /** xorshift64*: fast, seeded, the same sequence on every JVM. */
    static void fill(int[] a, long seed) {
        long x = seed == 0 ? 0x9E3779B97F4A7C15L : seed;
        for (int i = 0; i < a.length; i++) {
            x ^= x >>> 12;
            x ^= x << 25;
            x ^= x >>> 27;
            a[i] = (int) ((x * 0x2545F4914F6CDD1DL) >>> 32);
        }
    }

    /** In-place heap sort: sift-down jumps between i and 2i+1, far apart in big arrays. */
    static void heapSort(int[] a) {
        int n = a.length;
        for (int i = n / 2 - 1; i >= 0; i--) {
            siftDown(a, i, n);
        }
        for (int end = n - 1; end > 0; end--) {
            int t = a[0];
            a[0] = a[end];
            a[end] = t;
            siftDown(a, 0, end);
        }
    }

    static void siftDown(int[] a, int root, int n) {
        int value = a[root];
        int i = root;
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            if (child + 1 < n && a[child + 1] > a[child]) {
                child++;
            }
            if (a[child] <= value) {
                break;
            }
            a[i] = a[child];
            i = child;
        }
        a[i] = value;
    }

    static long checksum(int[] a) {
        long h = 1125899906842597L;
        for (int i = 0; i < a.length; i++) {
            h = 31 * h + a[i];
        }
        return h;
    }

    static void metric(String name, double value, String unit) {
        System.out.println("jvmlab-metric name=" + name + " value=" + value + " unit=" + unit);
        System.out.flush();
    }
}
