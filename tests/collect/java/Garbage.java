/** Allocates a fixed amount of short-lived garbage (argument: MiB) while keeping a small live set. */
public class Garbage {
    public static void main(String[] args) {
        long mib = args.length > 0 ? Long.parseLong(args[0]) : 200;
        byte[][] keep = new byte[64][];
        long sum = 0;
        for (long i = 0; i < mib * 16; i++) {
            byte[] b = new byte[64 * 1024];
            b[(int) (i % b.length)] = (byte) i;
            keep[(int) (i % keep.length)] = b;
            sum += b[0];
        }
        System.out.println("garbage done " + sum);
    }
}
