import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;

/**
 * jvmlab built-in workload "pretouch": reports what memory the JVM sees at startup.
 *
 * Run it with and without -XX:+AlwaysPreTouch, different -Xms or huge-page settings to see
 * startup cost and RSS of committing the heap. Prints free and total physical memory (as the
 * JVM's OperatingSystemMXBean reports them, container-aware on recent JDKs) and
 * Runtime.totalMemory / maxMemory / freeMemory, both as text and as jvmlab-metric lines.
 * A value the runtime cannot report is left out rather than printed as 0.
 */
public class JvmlabPretouch {
    public static void main(String[] args) {
        Object os = ManagementFactory.getOperatingSystemMXBean();
        Long free = osValue(os, "getFreeMemorySize", "getFreePhysicalMemorySize");
        Long total = osValue(os, "getTotalMemorySize", "getTotalPhysicalMemorySize");
        Runtime rt = Runtime.getRuntime();
        long heapTotal = rt.totalMemory();
        long heapMax = rt.maxMemory();
        long heapFree = rt.freeMemory();
        System.out.println("free physical memory: " + (free == null ? "unknown" : mib(free)));
        System.out.println("total physical memory: " + (total == null ? "unknown" : mib(total)));
        System.out.println("heap committed (Runtime.totalMemory): " + mib(heapTotal));
        System.out.println("heap max (Runtime.maxMemory): " + mib(heapMax));
        System.out.println("heap free (Runtime.freeMemory): " + mib(heapFree));
        if (free != null) {
            metric("free_physical_bytes", free, "bytes");
        }
        if (total != null) {
            metric("total_physical_bytes", total, "bytes");
        }
        metric("heap_total_bytes", heapTotal, "bytes");
        if (heapMax != Long.MAX_VALUE) {
            metric("heap_max_bytes", heapMax, "bytes");
        }
        metric("heap_free_bytes", heapFree, "bytes");
    }

    /**
     * Call the first getter that exists on com.sun.management.OperatingSystemMXBean.
     * Looked up through the exported interface (not the implementation class) so it works
     * under strong encapsulation; the newer names appeared in JDK 14.
     */
    static Long osValue(Object os, String... getters) {
        Class<?> iface;
        try {
            iface = Class.forName("com.sun.management.OperatingSystemMXBean");
        } catch (ClassNotFoundException e) {
            return null;
        }
        if (!iface.isInstance(os)) {
            return null;
        }
        for (String getter : getters) {
            try {
                Method m = iface.getMethod(getter);
                Object value = m.invoke(os);
                if (value instanceof Long && ((Long) value) >= 0) {
                    return (Long) value;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // try the next (older) name
            }
        }
        return null;
    }

    static String mib(long bytes) {
        return (bytes / (1024 * 1024)) + " MiB (" + bytes + " bytes)";
    }

    static void metric(String name, long value, String unit) {
        System.out.println("jvmlab-metric name=" + name + " value=" + value + " unit=" + unit);
        System.out.flush();
    }
}
