import java.util.concurrent.locks.LockSupport;

/**
 * A bit of everything a Flight Recording digests, for the JFR reader tests: for SECONDS
 * seconds the main thread computes (execution samples), allocates 16 KiB arrays into a small
 * ring (allocation samples, GCs in a small heap) and now and then takes a monitor that
 * another thread holds for 30 ms (monitor-enter events); a third thread parks for 30 ms at a
 * time (thread-park events).
 */
public class JfrMix {
    static final Object LOCK = new Object();
    static volatile double sink;

    static double compute(int n) {
        double s = 0;
        for (int i = 1; i < n; i++) {
            s += Math.sqrt(i) / i;
        }
        return s;
    }

    static Thread daemon(Runnable body) {
        Thread t = new Thread(body);
        t.setDaemon(true);
        t.start();
        return t;
    }

    public static void main(String[] args) throws InterruptedException {
        double seconds = Double.parseDouble(args[0]);
        long end = System.nanoTime() + (long) (seconds * 1e9);
        daemon(() -> {
            while (System.nanoTime() < end) {
                synchronized (LOCK) {
                    LockSupport.parkNanos(30_000_000L);
                }
                LockSupport.parkNanos(5_000_000L);
            }
        });
        daemon(() -> {
            while (System.nanoTime() < end) {
                LockSupport.parkNanos(30_000_000L);
            }
        });
        byte[][] ring = new byte[256][];
        long i = 0;
        while (System.nanoTime() < end) {
            sink += compute(20_000);
            ring[(int) (i++ % ring.length)] = new byte[16 * 1024];
            if (i % 100 == 0) {
                synchronized (LOCK) {
                    sink += 1;
                }
            }
        }
        System.out.println("jfrmix done " + (long) sink);
    }
}
