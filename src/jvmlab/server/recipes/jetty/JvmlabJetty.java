import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * jvmlab's real-server recipe: Jetty 12.1 on 127.0.0.1, the same endpoints as the built-in
 * server (/work allocates --alloc-kb and keeps a capped retained set; /health answers ok).
 * Stops on SIGTERM through Jetty's own shutdown hook.
 */
public class JvmlabJetty {
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
        Server server = new Server(new QueuedThreadPool(Math.max(threads, 4)));
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                String path = Request.getPathInContext(request);
                String body = path.startsWith("/work") ? "sum=" + work() + "\n" : "ok\n";
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
                response.write(true, ByteBuffer.wrap(bytes), callback);
                return true;
            }
        });
        server.setStopAtShutdown(true);
        server.start();
        System.out.println("jvmlab-jetty ready port=" + connector.getLocalPort());
        System.out.flush();
        server.join();
    }

    static long work() {
        long sum = 0;
        int n = Math.max(1, allocKb / 4);
        for (int i = 0; i < n; i++) {
            byte[] b = new byte[4096];
            b[i % 4096] = (byte) i;
            for (int j = 0; j < 4096; j += 64) sum = sum * 31 + b[j] + j;
        }
        synchronized (JvmlabJetty.class) {
            long k = ++served;
            if (k % 4 == 0) retained[(int) ((k / 4) % retained.length)] = new byte[64 * 1024];
        }
        return sum;
    }
}
