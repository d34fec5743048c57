/** Garbage with a live set of up to SLOTS x 64 KiB (arguments: MiB to allocate, SLOTS): on a small heap, young,
 * mixed and full collections and concurrent marking cycles. */
public class Churn {
    public static void main(String[] args) {
        long mib = Long.parseLong(args[0]);
        int slots = Integer.parseInt(args[1]);
        byte[][] keep = new byte[slots][];
        long sum = 0;
        java.util.Random r = new java.util.Random(1);
        for (long i = 0; i < mib * 16; i++) {
            byte[] b = new byte[64 * 1024];
            b[(int) (i % b.length)] = (byte) i;
            keep[r.nextInt(slots)] = b;
            sum += b[0];
        }
        System.out.println("done " + sum);
    }
}
