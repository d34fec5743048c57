import java.util.ArrayList;
import java.util.List;

/** Tiny allocation-heavy program: churns short-lived arrays and keeps a rolling window
 *  of longer-lived ones so that young, mixed/old and concurrent collections all happen. */
public class Alloc {
    public static void main(String[] args) {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 2;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<byte[]> window = new ArrayList<>();
        long sink = 0;
        int i = 0;
        while (System.nanoTime() < end) {
            byte[] b = new byte[1024 + (i % 64) * 256];
            sink += b.length;
            if (i % 8 == 0) {
                window.add(new byte[8 * 1024]);
                if (window.size() > 2500) {
                    window.subList(0, 1200).clear();
                }
            }
            if (i % 2_000_000 == 0 && i > 0) {
                System.gc();
            }
            i++;
        }
        System.out.println("done " + sink + " " + window.size());
    }
}
