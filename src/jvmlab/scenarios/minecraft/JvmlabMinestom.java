import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import net.minestom.server.MinecraftServer;
import net.minestom.server.coordinate.BlockVec;
import net.minestom.server.instance.Chunk;
import net.minestom.server.instance.InstanceContainer;
import net.minestom.server.instance.block.Block;

/**
 * jvmlab's minecraft scenario: a real Minestom server generating terrain chunks in-process.
 * The server is initialised but never started, so nothing listens on any socket. Chunks are
 * generated in a spiral and the oldest are unloaded beyond --keep, so memory stays bounded.
 * Prints "progress N chunks" every second and stops after --seconds.
 * Usage: JvmlabMinestom [--seconds S] [--keep N]
 */
public final class JvmlabMinestom {
    public static void main(String[] args) throws Exception {
        double seconds = 10;
        int keep = 400;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--seconds")) seconds = Double.parseDouble(args[i + 1]);
            else if (args[i].equals("--keep")) keep = Integer.parseInt(args[i + 1]);
            else { System.err.println("usage: JvmlabMinestom [--seconds S] [--keep N]"); System.exit(2); }
        }
        MinecraftServer.init();
        InstanceContainer instance = MinecraftServer.getInstanceManager().createInstanceContainer();
        instance.setGenerator(unit -> {
            BlockVec start = unit.absoluteStart();
            BlockVec size = unit.size();
            for (int x = 0; x < size.blockX(); x++) {
                for (int z = 0; z < size.blockZ(); z++) {
                    int wx = start.blockX() + x, wz = start.blockZ() + z;
                    int height = 48 + (int) (12 * Math.sin(wx / 23.0) * Math.cos(wz / 31.0)
                            + 6 * Math.sin((wx + wz) / 11.0));
                    unit.modifier().fillHeight(-64, -60, Block.BEDROCK);
                    for (int y = -60; y < height; y++) {
                        Block b = y < height - 4 ? Block.STONE : (y < height - 1 ? Block.DIRT : Block.GRASS_BLOCK);
                        if (((wx * 31 + y * 17 + wz * 13) & 63) == 0) b = Block.COAL_ORE;
                        unit.modifier().setBlock(wx, y, wz, b);
                    }
                }
            }
        });
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        ArrayDeque<Chunk> loaded = new ArrayDeque<>();
        long generated = 0;
        int x = 0, z = 0, dx = 1, dz = 0, leg = 1, stepInLeg = 0, turns = 0;
        while (System.nanoTime() < deadline) {
            loaded.add(instance.loadChunk(x, z).get(60, TimeUnit.SECONDS));
            generated++;
            while (loaded.size() > keep) instance.unloadChunk(loaded.removeFirst());
            x += dx; z += dz;  // square spiral: legs of 1, 1, 2, 2, 3, 3, ...
            if (++stepInLeg == leg) {
                stepInLeg = 0;
                int t = dx; dx = -dz; dz = t;
                if (++turns % 2 == 0) leg++;
            }
            if (System.nanoTime() >= nextReport) {
                System.out.println("progress " + generated + " chunks");
                nextReport += TimeUnit.SECONDS.toNanos(1);
            }
        }
        System.out.println("progress " + generated + " chunks");
        System.out.println("jvmlab-metric name=chunks value=" + generated + " unit=count");
        System.out.flush();
        Runtime.getRuntime().halt(0);  // Minestom's non-daemon threads would keep the JVM alive
    }
}
