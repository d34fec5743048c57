/** Prints "progress N units" (cumulative) every 100 ms: 10 units per tick for the first
 * `slowTicks` ticks, then 40 per tick, for `ticks` ticks in all. The rates come from
 * sleeping, so the 4x step is far larger than any scheduling jitter. */
public class Progress {
    public static void main(String[] args) throws Exception {
        int ticks = Integer.parseInt(args[0]);
        int slowTicks = Integer.parseInt(args[1]);
        long units = 0;
        long next = System.nanoTime();
        for (int i = 0; i < ticks; i++) {
            next += 100_000_000L;
            long sleepMs = (next - System.nanoTime()) / 1_000_000L;
            if (sleepMs > 0) Thread.sleep(sleepMs);
            units += i < slowTicks ? 10 : 40;
            System.out.println("progress " + units + " units");
        }
    }
}
