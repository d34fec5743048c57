import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * jvmlab's built-in load generator: HTTP/1.1 GETs over --connections keep-alive connections
 * to a loopback URL, for --duration-s seconds or --requests requests.
 * Closed loop (--rate 0): each connection sends its next request when the previous answer
 * arrived; latency is measured from the send. Fixed rate (--rate R, requests/s in total):
 * request k of a connection is due at start + k/rate-share; latency is measured from that
 * intended start (coordinated-omission correction), so a stalled server shows in the tail.
 * Latencies go into log-bucketed histograms (32 sub-buckets per power of two, about 3%),
 * merged over connections and printed as "jvmlab-load hist unit=us counts=idx:n,..." with a
 * summary line and one line per second: jvmlab parses them and merges across invocations.
 */
public class JvmlabLoad {
    static final int SUB = 32, SUB_BITS = 5, BUCKETS = 64 + 58 * SUB;
    static String host; static int port; static String path;
    static int connections = 4; static double rate = 0; static double durationS = 0; static long requests = 0;
    static double maxS = 0;
    static final AtomicLong claimed = new AtomicLong(), errors = new AtomicLong(), done = new AtomicLong();
    static final AtomicLongArray perSecond = new AtomicLongArray(3600);

    static int bucket(long us) {
        if (us < 2 * SUB) return (int) Math.max(0, us);
        int e = 63 - Long.numberOfLeadingZeros(us) - SUB_BITS;
        int i = 2 * SUB + (e - 1) * SUB + (int) ((us >> e) - SUB);
        return Math.min(i, BUCKETS - 1);
    }

    public static void main(String[] args) throws Exception {
        String url = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--url": url = v; break;
                case "--connections": connections = Integer.parseInt(v); break;
                case "--rate": rate = Double.parseDouble(v); break;
                case "--duration-s": durationS = Double.parseDouble(v); break;
                case "--requests": requests = Long.parseLong(v); break;
                case "--max-s": maxS = Double.parseDouble(v); break;
                default: System.err.println("unknown option " + args[i]); System.exit(2);
            }
        }
        if (url == null || (durationS <= 0 && requests <= 0) || connections < 1) {
            System.err.println("usage: --url http://127.0.0.1:PORT/path (--duration-s S | --requests N) "
                    + "[--connections C] [--rate R]");
            System.exit(2);
        }
        URI uri = URI.create(url);
        host = uri.getHost(); port = uri.getPort(); path = uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (uri.getRawQuery() != null) path += "?" + uri.getRawQuery();
        if (maxS <= 0) maxS = (durationS > 0 ? durationS : 600) + 60;
        final long start = System.nanoTime();
        final long deadline = start + (long) ((durationS > 0 ? durationS : maxS) * 1e9);
        final long[][] hists = new long[connections][BUCKETS];
        final long[] maxUs = new long[connections];
        Thread[] threads = new Thread[connections];
        for (int c = 0; c < connections; c++) {
            final int id = c;
            threads[c] = new Thread(() -> drive(id, start, deadline, hists[id], maxUs), "jvmlab-load-" + c);
            threads[c].start();
        }
        for (Thread t : threads) t.join((long) (maxS * 1000) + 1000);
        double elapsed = (System.nanoTime() - start) / 1e9;
        long[] merged = new long[BUCKETS];
        long max = 0;
        for (int c = 0; c < connections; c++) {
            for (int b = 0; b < BUCKETS; b++) merged[b] += hists[c][b];
            max = Math.max(max, maxUs[c]);
        }
        StringBuilder sb = new StringBuilder("jvmlab-load hist unit=us sub=" + SUB + " counts=");
        boolean first = true;
        for (int b = 0; b < BUCKETS; b++) {
            if (merged[b] == 0) continue;
            if (!first) sb.append(',');
            sb.append(b).append(':').append(merged[b]);
            first = false;
        }
        System.out.println(sb);
        int seconds = (int) Math.min(perSecond.length(), Math.ceil(elapsed));
        for (int s = 0; s < seconds; s++) {
            System.out.println("jvmlab-load second t=" + (s + 1) + " requests=" + perSecond.get(s));
        }
        System.out.printf(java.util.Locale.ROOT,
                "jvmlab-load summary mode=%s connections=%d rate=%.1f requests=%d errors=%d duration_s=%.3f "
                + "throughput_rps=%.2f max_us=%d%n", rate > 0 ? "fixed-rate" : "closed-loop", connections, rate,
                done.get(), errors.get(), elapsed, done.get() / elapsed, max);
        System.out.flush();
        System.exit(done.get() == 0 ? 1 : 0);
    }

    static void drive(int id, long start, long deadline, long[] hist, long[] maxUs) {
        long intervalNs = rate > 0 ? (long) (connections * 1e9 / rate) : 0;
        long intended = start + (rate > 0 ? (long) (id * 1e9 / rate) : 0);
        byte[] req = ("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        Socket socket = null;
        long hardStop = start + (long) (maxS * 1e9);
        while (true) {
            if (requests > 0 && claimed.incrementAndGet() > requests) break;
            long now = System.nanoTime();
            if (now >= deadline || now >= hardStop) break;
            if (rate > 0) {
                while ((now = System.nanoTime()) < intended) LockSupport.parkNanos(intended - now);
            }
            long from = rate > 0 ? intended : System.nanoTime();
            boolean ok;
            try {
                if (socket == null) socket = open();
                int answer = exchange(socket, req);  // negative: the server closes this connection
                ok = Math.abs(answer) >= 200 && Math.abs(answer) < 300;
                if (answer < 0 || !ok) { close(socket); socket = null; }
            } catch (IOException e) {
                ok = false;
                close(socket);
                socket = null;
                LockSupport.parkNanos(1_000_000L);  // a refused connection must not spin
            }
            long end = System.nanoTime();
            if (ok) {
                long us = (end - from) / 1000;
                hist[bucket(us)]++;
                if (us > maxUs[id]) maxUs[id] = us;
                done.incrementAndGet();
                int sec = (int) ((end - start) / 1_000_000_000L);
                if (sec < perSecond.length()) perSecond.incrementAndGet(sec);
            } else {
                errors.incrementAndGet();
            }
            intended += intervalNs;
        }
        close(socket);
    }

    /** Each connection thread's buffered reader of its current socket (bytes read in blocks, not one by one). */
    static final ThreadLocal<InputStream> INPUTS = new ThreadLocal<>();

    static Socket open() throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.setSoTimeout(30_000);
        s.connect(new InetSocketAddress(host, port), 5_000);
        INPUTS.set(new BufferedInputStream(s.getInputStream(), 16384));
        return s;
    }

    static void close(Socket s) {
        if (s != null) try { s.close(); } catch (IOException ignored) { }
    }

    /**
     * One request and its whole answer: its status code, negated when the server closes the
     * connection after it (Connection: close, as Tomcat does every 100 requests by default):
     * the answer still counts, and the next request opens a new connection. An HTTP/1.0 answer
     * closes unless it says keep-alive; a body with neither a length nor chunks ends at the close.
     */
    static int exchange(Socket socket, byte[] req) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(req);
        out.flush();
        InputStream in = INPUTS.get();
        String status = line(in);
        if (status == null) throw new IOException("closed");
        int code = Integer.parseInt(status.split(" ")[1]);
        long length = -1; boolean chunked = false, close = status.startsWith("HTTP/1.0"), noBody = code == 204 || code == 304;
        String h;
        while ((h = line(in)) != null && !h.isEmpty()) {
            String lower = h.toLowerCase(java.util.Locale.ROOT);
            if (lower.startsWith("content-length:")) length = Long.parseLong(lower.substring(15).trim());
            else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) chunked = true;
            else if (lower.startsWith("connection:") && lower.contains("close")) close = true;
            else if (lower.startsWith("connection:") && lower.contains("keep-alive")) close = false;
        }
        if (chunked) {
            while (true) {
                String size = line(in);
                if (size == null) throw new IOException("closed");
                int n = Integer.parseInt(size.split(";")[0].trim(), 16);
                skip(in, n + 2);
                if (n == 0) break;
            }
        } else if (length > 0) {
            skip(in, length);
        } else if (length < 0 && !noBody) {
            skipToEnd(in);
            close = true;
        }
        return close ? -code : code;
    }

    static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') return sb.toString();
            if (c != '\r') sb.append((char) c);
            if (sb.length() > 65536) throw new IOException("header line too long");
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    static void skipToEnd(InputStream in) throws IOException {
        byte[] buf = new byte[8192];
        for (long total = 0; total < (1L << 30); ) {  // bounded: at most 1 GiB of body
            int r = in.read(buf);
            if (r < 0) return;
            total += r;
        }
        throw new IOException("body over 1 GiB without a length");
    }

    static void skip(InputStream in, long n) throws IOException {
        byte[] buf = new byte[8192];
        while (n > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n));
            if (r < 0) throw new IOException("closed");
            n -= r;
        }
    }
}
