import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * For bench/jfr_overhead.py --within: runs a main class and, inside the same JVM, switches the
 * events of a running Flight Recording on and off every PERIOD ms, printing "jfr-toggle on" /
 * "jfr-toggle off" at each switch. "Off" is the same recording with every event's "enabled"
 * set to false: the recording is not stopped, so no chunk is finished and no JFR code runs
 * for a stop and a restart (that work, several ms of JIT and JFR-thread CPU after each stop,
 * leaked into the "off" periods of a starved machine and made "on" look faster). Comparing
 * the workload's rate in "on" periods with the "off" periods around them takes the run-to-run differences between JVMs (JIT decisions, heap
 * layout) out of the comparison: what is left is the cost of the recording's events. The
 * recording starts before the main class (as -XX:StartFlightRecording does), so JFR's own start-up
 * (its classes, their JIT) falls in the workload's warm-up, which the bench leaves out.
 *
 * Usage: JfrToggle PERIOD_MS SETTINGS EXTRAS DISK MAIN [ARGS...]
 *   SETTINGS: default, profile or a .jfc path; EXTRAS: "event#key=value;..." or "-";
 *   DISK: true or false (the recording's to-disk mode). The recording is discarded at exit.
 */
public class JfrToggle {
    public static void main(String[] args) throws Exception {
        long periodMs = Long.parseLong(args[0]);
        Configuration config = args[1].endsWith(".jfc") ? Configuration.create(Path.of(args[1]))
                : Configuration.getConfiguration(args[1]);
        Map<String, String> settings = new HashMap<>(config.getSettings());
        if (!"-".equals(args[2])) {
            for (String extra : args[2].split(";")) {
                int eq = extra.indexOf('=');
                settings.put(extra.substring(0, eq), extra.substring(eq + 1));
            }
        }
        boolean disk = Boolean.parseBoolean(args[3]);
        Method main = Class.forName(args[4]).getMethod("main", String[].class);
        String[] rest = Arrays.copyOfRange(args, 5, args.length);
        Thread app = new Thread(() -> {
            try {
                main.invoke(null, (Object) rest);
            } catch (Exception e) {
                e.printStackTrace();
                System.exit(1);
            }
        }, "main");
        Map<String, String> off = new HashMap<>(settings);
        off.replaceAll((key, value) -> key.endsWith("#enabled") ? "false" : value);
        Recording recording = new Recording(settings);
        recording.setToDisk(disk);
        recording.start();
        say("jfr-toggle on");
        app.start();
        boolean on = true;
        for (int i = 0; i < 100000 && app.isAlive(); i++) {
            app.join(periodMs);
            if (!app.isAlive()) {
                break;
            }
            try {
                recording.setSettings(on ? off : settings);
            } catch (IllegalStateException exiting) {
                break; // the workload called System.exit: JFR's shutdown hook closed the recording
            }
            on = !on;
            say(on ? "jfr-toggle on" : "jfr-toggle off");
        }
    }

    static void say(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
