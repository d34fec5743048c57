import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * jvmlab's second real-server recipe: embedded Tomcat 11 on 127.0.0.1, the same endpoints as
 * the built-in server (/work allocates --alloc-kb and keeps a capped retained set; /health
 * answers ok). Its work folder is a fresh temporary folder, removed when it stops; it stops
 * on SIGTERM through a shutdown hook (embedded Tomcat installs none of its own).
 */
public class JvmlabTomcat {
    static int allocKb = 64;
    static byte[][] retained = new byte[32 * 16][];
    static long served;

    public static void main(String[] args) throws Exception {
        int port = 8080, threads = 8;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--threads" -> threads = Integer.parseInt(args[i + 1]);
                case "--alloc-kb" -> allocKb = Integer.parseInt(args[i + 1]);
                default -> { System.err.println("unknown option " + args[i]); System.exit(2); }
            }
        }
        Path base = Files.createTempDirectory("jvmlab-tomcat");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        Connector connector = new Connector();
        connector.setPort(port);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxThreads", String.valueOf(Math.max(threads, 4)));
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        Tomcat.addServlet(context, "jvmlab", new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                String path = request.getRequestURI();
                String body = path.startsWith("/work") ? "sum=" + work() + "\n" : "ok\n";
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                response.setStatus(200);
                response.setContentType("text/plain");
                response.setContentLength(bytes.length);
                response.getOutputStream().write(bytes);
            }
        });
        context.addServletMappingDecoded("/*", "jvmlab");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(tomcat, base), "jvmlab-tomcat-stop"));
        tomcat.start();
        System.out.println("jvmlab-tomcat ready port=" + connector.getLocalPort());
        System.out.flush();
        tomcat.getServer().await();
    }

    static void stop(Tomcat tomcat, Path base) {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (Exception e) {
            System.err.println("jvmlab-tomcat stop: " + e);
        }
        try (Stream<Path> paths = Files.walk(base)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("jvmlab-tomcat cleanup: " + e);
        }
    }

    static long work() {
        long sum = 0;
        int n = Math.max(1, allocKb / 4);
        for (int i = 0; i < n; i++) {
            byte[] b = new byte[4096];
            b[i % 4096] = (byte) i;
            for (int j = 0; j < 4096; j += 64) sum = sum * 31 + b[j] + j;
        }
        synchronized (JvmlabTomcat.class) {
            long k = ++served;
            if (k % 4 == 0) retained[(int) ((k / 4) % retained.length)] = new byte[64 * 1024];
        }
        return sum;
    }
}
