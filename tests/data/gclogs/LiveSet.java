import java.util.ArrayList;
import java.util.List;

/** A live set that grows, or stays flat: STEPS rounds, each keeps GROW_MB more (or none),
 *  churns short-lived garbage and asks for a full collection, so the heap after each full
 *  collection is the live set (whatever the machine's load, the same collections happen).
 *  Args: grow (1 or 0), steps. */
public class LiveSet {
    static final int GROW_MB = 4;

    public static void main(String[] args) {
        boolean grow = args.length > 0 && args[0].equals("1");
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 16;
        List<byte[]> kept = new ArrayList<>();
        long sink = 0;
        for (int step = 0; step < steps; step++) {
            if (grow) {
                for (int k = 0; k < GROW_MB * 16; k++) {
                    kept.add(new byte[64 * 1024]);
                }
            }
            for (int j = 0; j < 20_000; j++) {
                byte[] b = new byte[1024];
                sink += b.length;
            }
            System.gc();
        }
        System.out.println("done " + sink + " " + kept.size());
    }
}
