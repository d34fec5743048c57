/**
 * jvmlab built-in workload "hello": the smallest possible program, used to measure
 * JVM startup and shutdown cost. Prints one line and exits 0.
 */
public class JvmlabHello {
    public static void main(String[] args) {
        System.out.println("Hello, jvmlab");
    }
}
