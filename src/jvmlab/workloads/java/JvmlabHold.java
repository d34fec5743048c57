import java.util.Random;

/**
 * jvmlab built-in workload "hold": keeps a known live set and allocates a fixed amount of
 * short-lived garbage around it, so its minimum heap is a little above the live set and its
 * run time falls as the heap grows (fewer collections). Used for minimum-heap and heap-sweep
 * experiments.
 *
 * Usage: JvmlabHold [--live-mb N] [--alloc-mb N] [--object-kb N] [--churn N] [--seed N]
 *   --live-mb   live set held for the whole run, in 64 KiB blocks (small enough never to be
 *               a humongous object for G1; default 64)
 *   --alloc-mb  garbage allocated in total (default 2048)
 *   --object-kb size of each short-lived object (default 16)
 *   --churn     every N garbage objects, one live block is replaced (old-generation churn;
 *               default 16, 0 = never)
 * Prints the metrics hold_ms and live_mb.
 */
public class JvmlabHold {
    public static void main(String[] args) {
        int liveMb = 64;
        long allocMb = 2048;
        int objectKb = 16;
        int churn = 16;
        long seed = 42;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                usage();
            }
            if ("--live-mb".equals(a)) {
                liveMb = Integer.parseInt(args[++i]);
            } else if ("--alloc-mb".equals(a)) {
                allocMb = Long.parseLong(args[++i]);
            } else if ("--object-kb".equals(a)) {
                objectKb = Integer.parseInt(args[++i]);
            } else if ("--churn".equals(a)) {
                churn = Integer.parseInt(args[++i]);
            } else if ("--seed".equals(a)) {
                seed = Long.parseLong(args[++i]);
            } else {
                usage();
            }
        }
        if (liveMb < 1 || allocMb < 0 || objectKb < 1 || churn < 0) {
            usage();
        }
        long start = System.nanoTime();
        int blocks = liveMb * (1024 / BLOCK_KB);
        byte[][] live = new byte[blocks][];
        for (int i = 0; i < blocks; i++) {
            live[i] = block(i);
        }
        Random random = new Random(seed);
        int objectBytes = objectKb * 1024;
        long total = allocMb << 20;
        long allocated = 0;
        long sink = 0;
        long count = 0;
        while (allocated < total) {
            byte[] garbage = new byte[objectBytes];
            garbage[random.nextInt(objectBytes)] = (byte) count;
            sink += garbage[(int) (count % objectBytes)];
            allocated += objectBytes;
            count++;
            if (churn > 0 && count % churn == 0) {
                int slot = random.nextInt(blocks);
                live[slot] = block(slot);
                allocated += BLOCK_KB * 1024;
            }
        }
        long check = 0;
        for (byte[] b : live) {
            check += b[0];
        }
        double ms = (System.nanoTime() - start) / 1e6;
        System.out.println("hold: live " + liveMb + " MiB, allocated " + (allocated >> 20) + " MiB, check "
                + (check + sink));
        metric("hold_ms", ms, "ms");
        metric("live_mb", liveMb, "MB");
    }

    static final int BLOCK_KB = 64;

    static byte[] block(int i) {
        byte[] b = new byte[BLOCK_KB * 1024];
        b[0] = (byte) i;
        return b;
    }

    static void usage() {
        System.err.println("usage: JvmlabHold [--live-mb N] [--alloc-mb N] [--object-kb N] [--churn N] [--seed N]");
        System.exit(2);
    }

    static void metric(String name, double value, String unit) {
        System.out.println("jvmlab-metric name=" + name + " value=" + value + " unit=" + unit);
        System.out.flush();
    }
}
