import java.util.Arrays;

/**
 * jvmlab built-in workload "tlbsort": memory-locality benchmark for page-size and TLB
 * settings (-XX:+UseLargePages, -XX:+UseTransparentHugePages, NUMA, ...).
 *
 * Fills an int[] of N MiB from a seeded xorshift generator, then sorts one copy with an own
 * heap sort (random access all over the array: TLB- and cache-hostile) and the original with
 * Arrays.sort (mostly sequential: locality-friendly). Each phase's in-process time is printed
 * as a jvmlab-metric line (fill_ms, heapsort_ms, arrayssort_ms); the checksum of the sorted
 * data is printed so the JIT cannot discard the work, and both sorts must agree (exit 1 if not).
 *
 * Usage: JvmlabTlbSort [--mb N] [--seed S]   (defaults 64 and 42)
 */
public class JvmlabTlbSort {
    public static void main(String[] args) {
        int mb = 64;
        long seed = 42L;
        for (int i = 0; i < args.length; i++) {
            if ("--mb".equals(args[i]) && i + 1 < args.length) {
                mb = Integer.parseInt(args[++i]);
            } else if ("--seed".equals(args[i]) && i + 1 < args.length) {
                seed = Long.parseLong(args[++i]);
            } else {
                usage();
            }
        }
        if (mb < 1 || mb > 2047) {
            System.err.println("--mb must be between 1 and 2047");
            System.exit(2);
        }
        int n = mb * (1024 * 1024 / 4);

        long t0 = System.nanoTime();
        int[] data = new int[n];
        fill(data, seed);
        long t1 = System.nanoTime();
        metric("fill_ms", (t1 - t0) / 1e6);

        int[] copy = data.clone();
        long t2 = System.nanoTime();
        heapSort(copy);
        long t3 = System.nanoTime();
        metric("heapsort_ms", (t3 - t2) / 1e6);

        long t4 = System.nanoTime();
        Arrays.sort(data);
        long t5 = System.nanoTime();
        metric("arrayssort_ms", (t5 - t4) / 1e6);

        if (!Arrays.equals(data, copy)) {
            System.err.println("heap sort and Arrays.sort disagree: bug in the workload");
            System.exit(1);
        }
        System.out.println("tlbsort mb=" + mb + " seed=" + seed + " ints=" + n
                + " checksum=" + checksum(data));
    }

    static void usage() {
        System.err.println("usage: JvmlabTlbSort [--mb N] [--seed S]");
        System.exit(2);
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

    static void metric(String name, double value) {
        System.out.println("jvmlab-metric name=" + name + " value=" + value + " unit=ms");
        System.out.flush();
    }
}
