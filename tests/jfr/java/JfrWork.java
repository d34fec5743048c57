/**
 * A workload with known hot methods, for profile tests: for SECONDS seconds it calls
 * hotLoop (floating-point work, no allocation); with "extra" it spends about as much time
 * again in extraWork, which only that variant runs (argument "extra" or -Djfrwork.extra=true). Allocates a little so allocation
 * samples exist. Prints "ready" once warm so the ready marker is seen.
 */
public class JfrWork {
    static volatile double sink;

    static double hotLoop(int n) {
        double s = 0;
        for (int i = 1; i < n; i++) {
            s += Math.sqrt(i) / i;
        }
        return s;
    }

    static double extraWork(int n) {
        double s = 1;
        for (int i = 1; i < n; i++) {
            s = s * 1.0000001 + (i % 7) * 0.5;
        }
        return s;
    }

    public static void main(String[] args) {
        double seconds = Double.parseDouble(args[0]);
        boolean extra = args.length > 1 && args[1].equals("extra") || Boolean.getBoolean("jfrwork.extra");
        long end = System.nanoTime() + (long) (seconds * 1e9);
        System.out.println("ready");
        while (System.nanoTime() < end) {
            sink += hotLoop(200_000);
            if (extra) {
                sink += extraWork(400_000);
            }
            sink += new int[64].length;
        }
        System.out.println("done " + sink);
    }
}
