import java.util.ArrayList;
import java.util.List;

/**
 * jvmlab built-in workload "busy": a controllable stand-in for tests of the runner.
 *
 * Steps, in order: optionally print READY after --ready-after-ms; sleep (or with --spin burn
 * CPU) for --ms; then --oom allocates 1 MiB arrays until the heap is exhausted (the
 * OutOfMemoryError is not caught, so the JVM's own OOM handling applies); --hang sleeps for
 * (practically) ever, up to 24 h, for timeout and kill tests; finally exit with --exit CODE.
 * Prints the metric busy_ms (the time actually spent in the --ms step).
 *
 * Usage: JvmlabBusy [--ms N] [--spin] [--exit CODE] [--hang] [--oom] [--ready-after-ms N]
 */
public class JvmlabBusy {
    static volatile long sink;

    public static void main(String[] args) throws InterruptedException {
        long ms = 0;
        long readyAfterMs = -1;
        int exitCode = 0;
        boolean spin = false, hang = false, oom = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if ("--spin".equals(a)) {
                spin = true;
            } else if ("--hang".equals(a)) {
                hang = true;
            } else if ("--oom".equals(a)) {
                oom = true;
            } else if (i + 1 < args.length && "--ms".equals(a)) {
                ms = Long.parseLong(args[++i]);
            } else if (i + 1 < args.length && "--exit".equals(a)) {
                exitCode = Integer.parseInt(args[++i]);
            } else if (i + 1 < args.length && "--ready-after-ms".equals(a)) {
                readyAfterMs = Long.parseLong(args[++i]);
            } else {
                System.err.println("usage: JvmlabBusy [--ms N] [--spin] [--exit CODE] [--hang] [--oom]"
                        + " [--ready-after-ms N]");
                System.exit(2);
            }
        }
        if (readyAfterMs >= 0) {
            Thread.sleep(readyAfterMs);
            System.out.println("READY");
            System.out.flush();
        }
        long start = System.nanoTime();
        if (spin) {
            spinFor(ms);
        } else if (ms > 0) {
            Thread.sleep(ms);
        }
        System.out.println("jvmlab-metric name=busy_ms value=" + (System.nanoTime() - start) / 1e6 + " unit=ms");
        System.out.flush();
        if (oom) {
            exhaustHeap();
        }
        if (hang) {
            System.out.println("hanging");
            System.out.flush();
            for (int i = 0; i < 24 * 3600; i++) {
                Thread.sleep(1000);
            }
        }
        System.exit(exitCode);
    }

    static void spinFor(long ms) {
        long end = System.nanoTime() + ms * 1000000L;
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 1000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        sink = x;
    }

    /** Keep 1 MiB arrays reachable until the heap is full (at most 1 TiB worth). */
    static void exhaustHeap() {
        List<byte[]> hoard = new ArrayList<byte[]>();
        for (int i = 0; i < (1 << 20); i++) {
            hoard.add(new byte[1 << 20]);
        }
        sink = hoard.size();
    }
}
