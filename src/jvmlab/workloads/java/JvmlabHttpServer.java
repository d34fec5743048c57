import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * jvmlab's built-in server workload (JDK only): an HTTP/1.1 server on 127.0.0.1.
 * GET /work allocates --alloc-kb of short-lived arrays, keeps some in a capped retained set
 * (--retain-mb, so old-generation work and GC choice matter) and computes a checksum;
 * GET /health answers "ok". --stall-ms/--stall-every-ms pause request handling periodically
 * (the coordinated-omission bench). Exits on SIGTERM (the JVM's shutdown), or after --max-s.
 */
public class JvmlabHttpServer {
    static int port = 0, threads = 4, allocKb = 64, retainMb = 32;
    static long stallMs = 0, stallEveryMs = 0, maxS = 3600;
    static byte[][] retained;
    static final AtomicLong served = new AtomicLong();
    static final ReentrantReadWriteLock stall = new ReentrantReadWriteLock();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--port": port = Integer.parseInt(v); break;
                case "--threads": threads = Integer.parseInt(v); break;
                case "--alloc-kb": allocKb = Integer.parseInt(v); break;
                case "--retain-mb": retainMb = Integer.parseInt(v); break;
                case "--stall-ms": stallMs = Long.parseLong(v); break;
                case "--stall-every-ms": stallEveryMs = Long.parseLong(v); break;
                case "--max-s": maxS = Long.parseLong(v); break;
                default: System.err.println("unknown option " + args[i]); System.exit(2);
            }
        }
        System.setProperty("sun.net.httpserver.nodelay", "true");  // else delayed ACKs add 40 ms per answer
        retained = new byte[Math.max(1, retainMb * 16)][];  // 64 KiB slots
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 512);
        server.createContext("/health", ex -> reply(ex, "ok\n".getBytes(StandardCharsets.UTF_8)));
        server.createContext("/work", JvmlabHttpServer::work);
        server.createContext("/", ex -> reply(ex, "jvmlab\n".getBytes(StandardCharsets.UTF_8)));
        server.setExecutor(Executors.newFixedThreadPool(threads));
        server.start();
        if (stallMs > 0 && stallEveryMs > 0) startStaller();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop(0);
            System.out.println("jvmlab-server stopped served=" + served.get());
            System.out.flush();
        }));
        System.out.println("jvmlab-server ready port=" + server.getAddress().getPort());
        System.out.flush();
        Thread.sleep(maxS * 1000L);  // bounded: a forgotten server exits by itself
        System.exit(0);
    }

    static void startStaller() {
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    Thread.sleep(stallEveryMs);
                    stall.writeLock().lock();
                    try { Thread.sleep(stallMs); } finally { stall.writeLock().unlock(); }
                }
            } catch (InterruptedException e) { /* exit */ }
        }, "jvmlab-staller");
        t.setDaemon(true);
        t.start();
    }

    static void work(HttpExchange ex) throws IOException {
        stall.readLock().lock();
        long sum = 0;
        try {
            int n = Math.max(1, allocKb / 4);
            for (int i = 0; i < n; i++) {
                byte[] b = new byte[4096];
                b[i % 4096] = (byte) i;
                for (int j = 0; j < 4096; j += 64) sum = sum * 31 + b[j] + j;
            }
            long k = served.incrementAndGet();
            if (k % 4 == 0) {  // retain 64 KiB now and then: the old generation fills and turns over
                byte[] keep = new byte[64 * 1024];
                keep[(int) (k % keep.length)] = (byte) sum;
                retained[(int) ((k / 4) % retained.length)] = keep;
            }
        } finally {
            stall.readLock().unlock();
        }
        reply(ex, ("sum=" + sum + "\n").getBytes(StandardCharsets.UTF_8));
    }

    static void reply(HttpExchange ex, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(200, body.length);
        try (OutputStream out = ex.getResponseBody()) { out.write(body); }
    }
}
