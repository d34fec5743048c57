/**
 * bench/busy_truth.py's workload: effects known by construction.
 *
 * Usage: BusyTruth [--work N] [--sleep-ms M] [--hold-mb K]
 *   --work     N million iterations of an integer hash loop on one thread (CPU work, no allocation)
 *   --sleep-ms sleep M ms after the work (wall time, no CPU)
 *   --hold-mb  allocate and touch K MiB, held until exit (peak RSS)
 */
public class BusyTruth {
    static volatile long sink;

    public static void main(String[] args) throws InterruptedException {
        long work = 100, sleepMs = 0;
        int holdMb = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--work": work = Long.parseLong(args[i + 1]); break;
                case "--sleep-ms": sleepMs = Long.parseLong(args[i + 1]); break;
                case "--hold-mb": holdMb = Integer.parseInt(args[i + 1]); break;
                default: System.err.println("usage: BusyTruth [--work N] [--sleep-ms M] [--hold-mb K]"); System.exit(2);
            }
        }
        byte[][] held = new byte[holdMb][];
        for (int k = 0; k < holdMb; k++) {
            held[k] = new byte[1 << 20];
            for (int p = 0; p < held[k].length; p += 4096) held[k][p] = 1;
        }
        long x = 0x9E3779B97F4A7C15L;
        for (long i = 0; i < work * 1_000_000L; i++) {
            x ^= x << 13; x ^= x >>> 7; x ^= x << 17;
        }
        sink = x + held.length;
        if (sleepMs > 0) Thread.sleep(sleepMs);
    }
}
