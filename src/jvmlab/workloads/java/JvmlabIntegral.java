/**
 * jvmlab built-in workload "integral": a tight floating-point loop (Simpson's rule for the
 * integral of e^x on [0, 1]) whose speed depends mostly on the JIT.
 *
 * Usage: JvmlabIntegral [--steps N]   (N rounded up to even; default 50000000)
 * Prints the result, its error against e - 1, and the metric integral_ms.
 */
public class JvmlabIntegral {
    public static void main(String[] args) {
        long steps = 50000000L;
        for (int i = 0; i < args.length; i++) {
            if ("--steps".equals(args[i]) && i + 1 < args.length) {
                steps = Long.parseLong(args[++i]);
            } else {
                System.err.println("usage: JvmlabIntegral [--steps N]");
                System.exit(2);
            }
        }
        if (steps < 2) {
            System.err.println("--steps must be at least 2");
            System.exit(2);
        }
        if (steps % 2 != 0) {
            steps++;
        }
        long start = System.nanoTime();
        double result = simpson(0.0, 1.0, steps);
        double ms = (System.nanoTime() - start) / 1e6;
        double error = Math.abs(result - (Math.E - 1.0));
        System.out.println("integral of e^x on [0,1] = " + result + " steps=" + steps + " error=" + error);
        metric("integral_ms", ms, "ms");
    }

    /** Composite Simpson's rule; steps must be even. */
    static double simpson(double a, double b, long steps) {
        double h = (b - a) / steps;
        double sum = Math.exp(a) + Math.exp(b);
        for (long k = 1; k < steps; k++) {
            double x = a + k * h;
            sum += ((k & 1L) == 1L ? 4.0 : 2.0) * Math.exp(x);
        }
        return sum * h / 3.0;
    }

    static void metric(String name, double value, String unit) {
        System.out.println("jvmlab-metric name=" + name + " value=" + value + " unit=" + unit);
        System.out.flush();
    }
}
