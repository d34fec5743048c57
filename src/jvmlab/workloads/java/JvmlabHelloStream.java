import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * jvmlab built-in workload "hellostream": startup cost of the lambda and stream machinery.
 *
 * A few stream pipelines, collectors, lambdas and method references force the JVM to spin
 * up invokedynamic bootstrap, LambdaMetafactory and the stream classes, which is what CDS,
 * AOT caches and similar startup features speed up. Exits 0 after printing a summary line.
 */
public class JvmlabHelloStream {
    public static void main(String[] args) {
        List<String> words = Arrays.asList("hello", "jvmlab", "stream", "lambda", "collector",
                "method", "reference", "optional", "supplier", "function");

        Map<Integer, List<String>> byLength = words.stream()
                .collect(Collectors.groupingBy(String::length, TreeMap::new, Collectors.toList()));

        String joined = words.stream()
                .filter(w -> w.length() > 5)
                .map(String::toUpperCase)
                .sorted()
                .collect(Collectors.joining(",", "[", "]"));

        int sumOfSquares = IntStream.rangeClosed(1, 100).map(i -> i * i).sum();

        Function<String, Integer> len = String::length;
        Supplier<List<String>> fresh = ArrayList::new;
        List<String> copy = fresh.get();
        words.forEach(copy::add);

        Optional<String> longest = Stream.of(words.toArray(new String[0]))
                .max((a, b) -> Integer.compare(len.apply(a), len.apply(b)));

        double average = words.stream().mapToInt(String::length).average().orElse(Double.NaN);

        Map<Boolean, Long> partition = copy.stream()
                .collect(Collectors.partitioningBy(w -> w.indexOf('e') >= 0, Collectors.counting()));

        System.out.println("Hello, jvmlab streams: groups=" + byLength.size()
                + " joined=" + joined
                + " squares=" + sumOfSquares
                + " longest=" + longest.orElse("")
                + " avg=" + average
                + " withE=" + partition.get(Boolean.TRUE));
    }
}
