import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * For bench/observer_effect.py: runs a main class and switches the JVM's GC log (the file output
 * jvmlab's gc collector configured with -Xlog) off and on inside the same JVM, at the same ticks
 * at which jvmlab pauses and resumes its /proc sampler, so both collectors that work while the
 * workload runs are compared within one JVM (between JVMs the steady rate differs by 8-13%, far
 * more than the 1% to be decided).
 *
 * The ticks are the workload's own progress lines ("progress N chunks" on stdout): System.out is
 * wrapped, every complete line goes through unchanged and is flushed, and after a tick line that
 * starts a period the output is switched with the DiagnosticCommand MBean's VM.log (as
 * {@code jcmd PID VM.log} would, without starting another JVM): "off" narrows the output's
 * selection to the heap summary written at exit (nothing while the workload runs), "on" gives it
 * jvmlab's selection and decorators again. The MBean server is made before the workload starts, so its
 * class loading is in the warm-up, and one switch to the state the first period already has is
 * made then too, so the first real switch does not pay a first call.
 *
 * The schedule is jvmlab's (bench/observer_toggle.py Schedule): periods of PERIOD ticks from tick
 * FIRST; the first has the log on when FIRST_ON is true, then they alternate; before FIRST the log
 * is on. Each switch is printed to stderr as "log-toggle on|off TICK" (stdout carries the ticks).
 *
 * Usage: LogToggle FIRST PERIOD FIRST_ON FILE SELECTION MAIN [ARGS...]
 */
public class LogToggle {
    static final ObjectName DCMD;

    static {
        try {
            DCMD = new ObjectName("com.sun.management:type=DiagnosticCommand");
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** "Off": only the heap summary the JVM writes at exit, nothing while it runs. Not all=off:
     *  an output with nothing enabled is closed, and opening it again truncates the file. */
    static final String OFF = "all=off,gc+heap+exit=info";

    final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    final int first;
    final int period;
    final boolean firstOn;
    final String file;
    final String selection;
    int ticks;

    LogToggle(int first, int period, boolean firstOn, String file, String selection) {
        this.first = first;
        this.period = period;
        this.firstOn = firstOn;
        this.file = file;
        this.selection = selection;
    }

    /** The log's state from tick {@code tick} on, or null when no period starts there. */
    Boolean switchAt(int tick) {
        int offset = tick - first;
        if (offset < 0 || offset % period != 0) {
            return null;
        }
        return firstOn != ((offset / period) % 2 == 1);
    }

    void set(boolean on) throws Exception {
        String[] args = {"output=file=" + file, "what=" + (on ? selection : OFF), "decorators=uptime,level,tags"};
        Object said = server.invoke(DCMD, "vmLog", new Object[] {args}, new String[] {String[].class.getName()});
        if (said != null && !said.toString().isBlank()) {
            System.err.println("log-toggle VM.log said: " + said.toString().strip());
        }
    }

    void line(String text) {
        if (!(text.startsWith("progress ") && text.endsWith(" chunks"))) {
            return;
        }
        Boolean state = switchAt(++ticks);
        if (state == null) {
            return;
        }
        try {
            set(state);
        } catch (Exception e) {
            System.err.println("log-toggle failed: " + e);
            Runtime.getRuntime().halt(3);
        }
        System.err.println("log-toggle " + (state ? "on" : "off") + " " + ticks);
    }

    /** Passes every byte through; after each complete line, flushes and looks at the line. */
    final class Lines extends FilterOutputStream {
        private final StringBuilder current = new StringBuilder();

        Lines(OutputStream out) {
            super(out);
        }

        @Override
        public synchronized void write(int b) throws IOException {
            out.write(b);
            if (b == '\n') {
                out.flush();
                String text = current.toString();
                current.setLength(0);
                line(text.endsWith("\r") ? text.substring(0, text.length() - 1) : text);
            } else {
                current.append((char) (b & 0xff));
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        LogToggle toggle = new LogToggle(Integer.parseInt(args[0]), Integer.parseInt(args[1]),
                Boolean.parseBoolean(args[2]), args[3], args[4]);
        toggle.set(true);  // the log is on before the first period: warms the MBean's call path
        System.setOut(new PrintStream(toggle.new Lines(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out),
                8192)), false, StandardCharsets.UTF_8));
        Method main = Class.forName(args[5]).getMethod("main", String[].class);
        main.invoke(null, (Object) Arrays.copyOfRange(args, 6, args.length));
        System.out.flush();
    }
}
