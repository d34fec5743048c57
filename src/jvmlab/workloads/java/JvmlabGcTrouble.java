import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * jvmlab built-in workload "gctrouble": makes one GC problem happen on purpose, so that the
 * GC log shows the finding `jvmlab gc analyze` reports for it (docs/gclog.md, "Findings").
 *
 * Usage: JvmlabGcTrouble --mode MODE [--count N] [--mb N] [--seconds N] [--threads N]
 *   explicit   calls System.gc() --count times (default 5) between some allocation
 *   humongous  allocates --mb MiB (default 1024) of 8 MiB arrays, larger than half a G1
 *              region for any heap below 32 GiB
 *   fill       keeps small objects live until the heap is full (to-space exhausted, full
 *              collections, then OutOfMemoryError, caught): run with a small -Xmx; with
 *              --mb N it holds N MiB live instead, then allocates 16x that of garbage while
 *              replacing one live object in 8 (a live set near -Xmx that a bigger heap fixes)
 *   metaspace  defines --count classes (default 20000), each in a class loader of its own,
 *              keeping the last 500: run with a small -XX:MaxMetaspaceSize
 *   churn      --threads threads (default 2) allocate as fast as they can for --seconds
 *              (default 4) beside a live set of half the heap (--mb N: N MiB instead):
 *              allocation stalls with ZGC,
 *              degenerated cycles with Shenandoah
 * Prints the metrics trouble_ms and one count of the mode.
 */
public class JvmlabGcTrouble {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        String mode = null;
        int count = -1;
        long mb = -1;
        double seconds = 4;
        int threads = 2;
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) {
                usage();
            }
            String a = args[i];
            String v = args[++i];
            if ("--mode".equals(a)) {
                mode = v;
            } else if ("--count".equals(a)) {
                count = Integer.parseInt(v);
            } else if ("--mb".equals(a)) {
                mb = Long.parseLong(v);
            } else if ("--seconds".equals(a)) {
                seconds = Double.parseDouble(v);
            } else if ("--threads".equals(a)) {
                threads = Integer.parseInt(v);
            } else {
                usage();
            }
        }
        long start = System.nanoTime();
        if ("explicit".equals(mode)) {
            explicit(count < 0 ? 5 : count);
        } else if ("humongous".equals(mode)) {
            humongous(mb < 0 ? 1024 : mb);
        } else if ("fill".equals(mode)) {
            fill(mb);
        } else if ("metaspace".equals(mode)) {
            metaspace(count < 0 ? 20000 : count);
        } else if ("churn".equals(mode)) {
            churn(threads, seconds, mb);
        } else {
            usage();
        }
        double ms = (System.nanoTime() - start) / 1e6;
        System.out.println("jvmlab-metric name=trouble_ms value=" + ms + " unit=ms");
    }

    static void explicit(int count) {
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < 1000; j++) {
                sink = new byte[1024];
            }
            System.gc();
        }
        System.out.println("jvmlab-metric name=system_gc_calls value=" + count + " unit=count");
    }

    static void humongous(long mb) {
        byte[][] keep = new byte[4][];
        long arrays = mb / 8;
        for (long i = 0; i < arrays; i++) {
            byte[] big = new byte[8 << 20];
            big[(int) (i % big.length)] = 1;
            keep[(int) (i % keep.length)] = big;
        }
        sink = keep;
        System.out.println("jvmlab-metric name=humongous_arrays value=" + arrays + " unit=count");
    }

    static void fill(long mb) {
        List<byte[]> live = new ArrayList<byte[]>();
        long held = 0;
        long limit = mb < 0 ? Long.MAX_VALUE : mb << 20;
        try {
            while (held < limit) {
                live.add(new byte[512]);
                held += 512;
                sink = new byte[256];
            }
            int n = live.size();
            for (long i = 0; i < 16 * (limit / 256); i++) {
                sink = new byte[256];
                if ((i & 7) == 0) {
                    live.set((int) ((i >>> 3) % n), new byte[512]);
                }
            }
            System.out.println("jvmlab-metric name=held_mb value=" + (held >> 20) + " unit=MB");
        } catch (OutOfMemoryError full) {
            int n = live.size();
            live = null;
            System.out.println("jvmlab-metric name=held_mb value=" + (held >> 20) + " unit=MB");
            System.out.println("jvmlab-metric name=held_objects value=" + n + " unit=count");
        }
    }

    /** Loads one class from the given bytes; each instance is a class loader of its own. */
    static final class OneClassLoader extends ClassLoader {
        OneClassLoader() {
            super(null);
        }

        Class<?> define(String name, byte[] bytes) {
            return defineClass(name, bytes, 0, bytes.length);
        }
    }

    /** The class defined again and again (its bytes, read from the class path). */
    public static final class Tiny {
        public int value = 42;
    }

    static void metaspace(int count) throws Exception {
        String name = Tiny.class.getName();
        byte[] bytes = read(JvmlabGcTrouble.class.getResourceAsStream("/" + name.replace('.', '/') + ".class"));
        Object[] keep = new Object[500];
        for (int i = 0; i < count; i++) {
            Class<?> c = new OneClassLoader().define(name, bytes);
            keep[i % keep.length] = c;
        }
        sink = keep;
        System.out.println("jvmlab-metric name=classes_defined value=" + count + " unit=count");
    }

    static byte[] read(InputStream in) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        try {
            for (int n = in.read(buf); n > 0; n = in.read(buf)) {
                out.write(buf, 0, n);
            }
        } finally {
            in.close();
        }
        return out.toByteArray();
    }

    static void churn(int threads, final double seconds, long mb) throws Exception {
        long half = mb < 0 ? Runtime.getRuntime().maxMemory() / 2 : mb << 20;
        final List<byte[]> live = new ArrayList<byte[]>();
        for (long held = 0; held < half; held += 4096) {
            live.add(new byte[4096]);
        }
        final long[] allocated = new long[threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            workers[t] = new Thread(new Runnable() {
                public void run() {
                    long end = System.nanoTime() + (long) (seconds * 1e9);
                    long n = 0;
                    Object local = null;
                    while (System.nanoTime() < end) {
                        for (int k = 0; k < 1000; k++) {
                            local = new byte[1024];
                        }
                        n += 1000;
                    }
                    sink = local;
                    allocated[id] = n;
                }
            }, "churn-" + t);
            workers[t].start();
        }
        long total = 0;
        for (int t = 0; t < threads; t++) {
            workers[t].join();
            total += allocated[t];
        }
        sink = live;
        System.out.println("jvmlab-metric name=allocated_mb value=" + (total >> 10) + " unit=MB");
    }

    static void usage() {
        System.err.println("usage: JvmlabGcTrouble --mode explicit|humongous|fill|metaspace|churn "
                + "[--count N] [--mb N] [--seconds N] [--threads N]");
        System.exit(2);
    }
}
