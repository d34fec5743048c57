import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** A thread named "spinner" burns `cpuMs` of its own CPU time and exits; main then sleeps
 * `sleepMs`, so the sampler sees the process long after the spinner is gone. */
public class SpinThenSleep {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long cpuMs = Long.parseLong(args[0]);
        long sleepMs = Long.parseLong(args[1]);
        Thread spinner = new Thread(() -> {
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long limit = cpuMs * 1_000_000L;
            for (long i = 0; i < Long.MAX_VALUE && mx.getCurrentThreadCpuTime() < limit; i++) {
                for (int j = 0; j < 100_000; j++) sink += j ^ i;
            }
        }, "spinner");
        spinner.start();
        spinner.join();
        Thread.sleep(sleepMs);
        System.out.println("done");
    }
}
