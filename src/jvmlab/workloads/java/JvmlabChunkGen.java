import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * jvmlab built-in workload "chunkgen": an allocation-heavy, multi-threaded throughput
 * benchmark shaped like a Minecraft world generator, for comparing collectors and heap flags.
 *
 * Each worker generates "chunks": a 16 x 16 x H column of blocks (H = chunk-kb * 4 layers, so
 * 64 KiB gives the classic 256) from seeded value noise (terrain height and caves). Every
 * block is first a short-lived Block object (lots of young garbage), then it is lit and packed
 * into compact per-section byte arrays with small palette objects. Finished chunks go into a
 * shared retained set (old-generation pressure) that is capped at --retain-mb: once over, the
 * oldest chunks are evicted.
 *
 * Output: every second "progress N chunks" (N cumulative), at the end one more progress line,
 * a summary line and the metrics chunks (count) and chunks_per_s (chunks/s). The run ends
 * after --seconds whatever happens: workers check the deadline between chunks and are daemons.
 *
 * Usage: JvmlabChunkGen [--threads T] [--seconds S] [--retain-mb R] [--chunk-kb K] [--seed X]
 * (defaults 2, 10, 64, 64, 42)
 */
public class JvmlabChunkGen {
    static final byte AIR = 0, WATER = 1, STONE = 2, DIRT = 3, GRASS = 4, ORE = 5;
    static final String[] NAMES = {"air", "water", "stone", "dirt", "grass", "ore"};

    /** A block while its chunk is being generated: short-lived, one per position. */
    static final class Block {
        final byte type;
        final byte variant;
        byte light;

        Block(byte type, byte variant) {
            this.type = type;
            this.variant = variant;
        }
    }

    /** A palette entry kept with the chunk: small retained objects for the GC to trace. */
    static final class BlockState {
        final int key;
        final String name;

        BlockState(int key, String name) {
            this.key = key;
            this.name = name;
        }
    }

    static final class Section {
        final byte[] packed; // palette index (6 bits) | light / 4 (2 bits)
        final BlockState[] palette;

        Section(byte[] packed, BlockState[] palette) {
            this.packed = packed;
            this.palette = palette;
        }
    }

    static final class Entity {
        final int kind;
        final double x, y, z;
        final String name;

        Entity(int kind, double x, double y, double z, String name) {
            this.kind = kind;
            this.x = x;
            this.y = y;
            this.z = z;
            this.name = name;
        }
    }

    static final class Chunk {
        final int cx, cz;
        final int[] heightmap;
        final Section[] sections;
        final Entity[] entities;
        final long retainedBytes;

        Chunk(int cx, int cz, int[] heightmap, Section[] sections, Entity[] entities, long retainedBytes) {
            this.cx = cx;
            this.cz = cz;
            this.heightmap = heightmap;
            this.sections = sections;
            this.entities = entities;
            this.retainedBytes = retainedBytes;
        }
    }

    /** The retained set: oldest chunks are evicted once the estimate exceeds the cap. */
    static final class Retained {
        final ConcurrentLinkedDeque<Chunk> chunks = new ConcurrentLinkedDeque<Chunk>();
        final AtomicLong bytes = new AtomicLong();
        final long limitBytes;

        Retained(long limitBytes) {
            this.limitBytes = limitBytes;
        }

        void add(Chunk chunk) {
            chunks.addLast(chunk);
            bytes.addAndGet(chunk.retainedBytes);
            for (int i = 0; i < 1000000 && bytes.get() > limitBytes; i++) {
                Chunk oldest = chunks.pollFirst();
                if (oldest == null) {
                    break;
                }
                bytes.addAndGet(-oldest.retainedBytes);
            }
        }
    }

    static volatile boolean stop;

    public static void main(String[] args) throws InterruptedException {
        int threads = 2;
        double seconds = 10;
        long retainMb = 64;
        int chunkKb = 64;
        long seed = 42;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                usage();
            }
            String v = args[++i];
            if ("--threads".equals(a)) {
                threads = Integer.parseInt(v);
            } else if ("--seconds".equals(a)) {
                seconds = Double.parseDouble(v);
            } else if ("--retain-mb".equals(a)) {
                retainMb = Long.parseLong(v);
            } else if ("--chunk-kb".equals(a)) {
                chunkKb = Integer.parseInt(v);
            } else if ("--seed".equals(a)) {
                seed = Long.parseLong(v);
            } else {
                usage();
            }
        }
        if (threads < 1 || threads > 1024 || !(seconds > 0 && seconds <= 86400)
                || retainMb < 0 || chunkKb < 1 || chunkKb > 16384) {
            System.err.println("need 1 <= threads <= 1024, 0 < seconds <= 86400, retain-mb >= 0,"
                    + " 1 <= chunk-kb <= 16384");
            System.exit(2);
        }
        run(threads, seconds, retainMb, chunkKb, seed);
    }

    static void usage() {
        System.err.println("usage: JvmlabChunkGen [--threads T] [--seconds S] [--retain-mb R]"
                + " [--chunk-kb K] [--seed X]");
        System.exit(2);
    }

    static void run(int threads, double seconds, long retainMb, final int chunkKb, final long seed)
            throws InterruptedException {
        final Retained retained = new Retained(retainMb * 1024 * 1024);
        final AtomicLong nextIndex = new AtomicLong();
        final AtomicLong done = new AtomicLong();
        final AtomicLong checksum = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<Throwable>();
        final long start = System.nanoTime();
        final long deadline = start + (long) (seconds * 1e9);
        List<Thread> workers = new ArrayList<Thread>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(new Runnable() {
                public void run() {
                    try {
                        while (!stop && System.nanoTime() < deadline) {
                            Chunk chunk = generate(nextIndex.getAndIncrement(), chunkKb, seed);
                            retained.add(chunk);
                            checksum.addAndGet(chunk.heightmap[chunk.cx & 255] + chunk.sections.length);
                            done.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                        stop = true;
                    }
                }
            }, "chunkgen-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        for (long tick = 1; tick <= 86400 && !stop; tick++) {
            long next = start + tick * 1000000000L;
            if (next > deadline) {
                break;
            }
            sleepUntil(next);
            if (!stop) {
                progress(done.get());
            }
        }
        sleepUntil(deadline);
        stop = true;
        long joinDeadline = System.nanoTime() + 30000000000L;
        for (Thread worker : workers) {
            long leftMs = Math.max(1, (joinDeadline - System.nanoTime()) / 1000000L);
            worker.join(leftMs);
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        Throwable error = failure.get();
        if (error != null) {
            System.err.println("chunkgen failed: " + error);
            System.exit(1);
        }
        long total = done.get();
        progress(total);
        System.out.println("chunkgen done: chunks=" + total + " seconds=" + elapsed + " threads=" + threads
                + " retained_chunks=" + retained.chunks.size() + " checksum=" + checksum.get());
        metric("chunks", Long.toString(total), "count");
        metric("chunks_per_s", Double.toString(total / elapsed), "chunks/s");
        System.exit(0);
    }

    /** Sleep until a System.nanoTime() instant, surviving spurious early wake-ups (bounded). */
    static void sleepUntil(long instant) throws InterruptedException {
        for (int i = 0; i < 10000; i++) {
            long leftNs = instant - System.nanoTime();
            if (leftNs <= 0 || stop) {
                return;
            }
            Thread.sleep(Math.max(1, Math.min(100, leftNs / 1000000L)));
        }
    }

    static void progress(long chunks) {
        System.out.println("progress " + chunks + " chunks");
        System.out.flush();
    }

    static void metric(String name, String value, String unit) {
        System.out.println("jvmlab-metric name=" + name + " value=" + value + " unit=" + unit);
        System.out.flush();
    }

    static Chunk generate(long index, int chunkKb, long seed) {
        int cx = (int) (index % 1024) - 512;
        int cz = (int) (index / 1024 % 1024) - 512;
        int height = chunkKb * 4; // 256 block columns per layer, one byte each
        int[] heightmap = new int[256];
        for (int x = 0; x < 16; x++) {
            for (int z = 0; z < 16; z++) {
                double n = fbm2(seed, (cx * 16 + x) / 64.0, (cz * 16 + z) / 64.0);
                heightmap[z * 16 + x] = (int) (height * (0.2 + 0.6 * n));
            }
        }
        Block[] blocks = fill(cx, cz, height, heightmap, seed);
        light(blocks, height);
        Section[] sections = pack(blocks, height);
        Entity[] entities = spawn(cx, cz, heightmap, seed);
        // Estimated retained size with compressed oops: headers, arrays, palette entries with
        // their name Strings (~72 bytes each), entities with theirs (~112 bytes each).
        long bytes = 64 + 16 + 4L * 256 + 16 + 4L * sections.length + 16 + 4L * entities.length;
        for (Section s : sections) {
            bytes += 16 + 16 + s.packed.length + 16 + 4L * s.palette.length + 72L * s.palette.length;
        }
        bytes += 112L * entities.length;
        return new Chunk(cx, cz, heightmap, sections, entities, bytes);
    }

    static Block[] fill(int cx, int cz, int height, int[] heightmap, long seed) {
        Block[] blocks = new Block[256 * height];
        int sea = (int) (height * 0.35);
        for (int y = 0; y < height; y++) {
            for (int z = 0; z < 16; z++) {
                for (int x = 0; x < 16; x++) {
                    int wx = cx * 16 + x, wz = cz * 16 + z;
                    int h = heightmap[z * 16 + x];
                    byte type;
                    if (y > h) {
                        type = y <= sea ? WATER : AIR;
                    } else if (y < h - 3 && noise3(seed + 1, wx / 16.0, y / 8.0, wz / 16.0) > 0.7) {
                        type = AIR; // cave
                    } else if (y == h) {
                        type = y < sea ? DIRT : GRASS;
                    } else if (y > h - 4) {
                        type = DIRT;
                    } else {
                        type = hash01(seed + 2, wx, y, wz) < 0.02 ? ORE : STONE;
                    }
                    byte variant = (byte) (mix(seed ^ (wx * 31L + y * 17L + wz)) & 3);
                    blocks[(y * 16 + z) * 16 + x] = new Block(type, variant);
                }
            }
        }
        return blocks;
    }

    /** Sky light falling down each column: air keeps it, water dims it, solids stop it. */
    static void light(Block[] blocks, int height) {
        for (int column = 0; column < 256; column++) {
            int light = 15;
            for (int y = height - 1; y >= 0; y--) {
                Block b = blocks[y * 256 + column];
                if (b.type == WATER) {
                    light = Math.max(0, light - 2);
                } else if (b.type != AIR) {
                    light = 0;
                }
                b.light = (byte) light;
            }
        }
    }

    static Section[] pack(Block[] blocks, int height) {
        int count = (height + 15) / 16;
        Section[] sections = new Section[count];
        for (int s = 0; s < count; s++) {
            int layers = Math.min(16, height - s * 16);
            byte[] packed = new byte[layers * 256];
            int[] index = new int[NAMES.length * 4];
            java.util.Arrays.fill(index, -1);
            List<BlockState> palette = new ArrayList<BlockState>();
            int base = s * 16 * 256;
            for (int i = 0; i < packed.length; i++) {
                Block b = blocks[base + i];
                int key = b.type * 4 + b.variant;
                if (index[key] < 0) {
                    index[key] = palette.size();
                    palette.add(new BlockState(key, NAMES[b.type] + "#" + b.variant));
                }
                packed[i] = (byte) (index[key] | ((b.light >> 2) << 6));
            }
            sections[s] = new Section(packed, palette.toArray(new BlockState[0]));
        }
        return sections;
    }

    static Entity[] spawn(int cx, int cz, int[] heightmap, long seed) {
        int n = (int) (mix(seed ^ (cx * 341873128712L + cz * 132897987541L)) & 7);
        Entity[] entities = new Entity[n];
        for (int i = 0; i < n; i++) {
            int x = (i * 5) & 15, z = (i * 11) & 15;
            int kind = (int) (mix(seed + i + cx * 7L + cz) & 15);
            entities[i] = new Entity(kind, cx * 16 + x + 0.5, heightmap[z * 16 + x] + 1, cz * 16 + z + 0.5,
                    "mob-" + kind + "@" + cx + "," + cz);
        }
        return entities;
    }

    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    static double hash01(long seed, int x, int y, int z) {
        long h = mix(seed ^ (x * 0x9E3779B97F4A7C15L) ^ (y * 0xC2B2AE3D27D4EB4FL) ^ (z * 0x165667B19E3779F9L));
        return (h >>> 11) * 0x1.0p-53;
    }

    static double smooth(double t) {
        return t * t * (3 - 2 * t);
    }

    static double lerp(double a, double b, double t) {
        return a + (b - a) * t;
    }

    static double noise2(long seed, double x, double z) {
        int x0 = (int) Math.floor(x), z0 = (int) Math.floor(z);
        double tx = smooth(x - x0), tz = smooth(z - z0);
        double a = lerp(hash01(seed, x0, 0, z0), hash01(seed, x0 + 1, 0, z0), tx);
        double b = lerp(hash01(seed, x0, 0, z0 + 1), hash01(seed, x0 + 1, 0, z0 + 1), tx);
        return lerp(a, b, tz);
    }

    /** Four octaves of value noise, normalised to [0, 1). */
    static double fbm2(long seed, double x, double z) {
        double sum = 0, amplitude = 1, norm = 0, frequency = 1;
        for (int octave = 0; octave < 4; octave++) {
            sum += amplitude * noise2(seed + octave, x * frequency, z * frequency);
            norm += amplitude;
            amplitude *= 0.5;
            frequency *= 2;
        }
        return sum / norm;
    }

    static double noise3(long seed, double x, double y, double z) {
        int x0 = (int) Math.floor(x), y0 = (int) Math.floor(y), z0 = (int) Math.floor(z);
        double tx = smooth(x - x0), ty = smooth(y - y0), tz = smooth(z - z0);
        double c00 = lerp(hash01(seed, x0, y0, z0), hash01(seed, x0 + 1, y0, z0), tx);
        double c10 = lerp(hash01(seed, x0, y0 + 1, z0), hash01(seed, x0 + 1, y0 + 1, z0), tx);
        double c01 = lerp(hash01(seed, x0, y0, z0 + 1), hash01(seed, x0 + 1, y0, z0 + 1), tx);
        double c11 = lerp(hash01(seed, x0, y0 + 1, z0 + 1), hash01(seed, x0 + 1, y0 + 1, z0 + 1), tx);
        return lerp(lerp(c00, c10, ty), lerp(c01, c11, ty), tz);
    }
}
