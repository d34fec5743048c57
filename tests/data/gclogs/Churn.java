/** Allocation under a rolling window of surviving objects, for SECONDS: every young
 *  collection copies part of the window, so its pauses take milliseconds, not microseconds. */
public class Churn {
    public static void main(String[] args) {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 2;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        Object[] window = new Object[200_000];
        long sink = 0;
        int i = 0;
        while (System.nanoTime() < end || i < 3_000_000) {
            byte[] b = new byte[64 + (i % 16) * 16];
            sink += b.length;
            if (i % 4 == 0) {
                window[(i / 4) % window.length] = new byte[96];
            }
            i++;
        }
        System.out.println("done " + sink + " " + window.length);
    }
}
