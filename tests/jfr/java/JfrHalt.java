/** Ends the JVM with Runtime.halt: no shutdown hooks run, so JFR never dumps its recording. */
public class JfrHalt {
    public static void main(String[] args) {
        System.out.println("halting");
        Runtime.getRuntime().halt(0);
    }
}
