package dev.mailqueue.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * CPU time of processes on Linux, from {@code /proc/<pid>/stat} (utime and stime, fields 14 and 15, in
 * clock ticks of 10 ms): for Liberty its JVM, for PostgreSQL every {@code postgres} process (its
 * connection backends and helpers) plus what the postmaster's finished children used (cutime and
 * cstime, fields 16 and 17), so a backend that ended during the phase still counts.
 */
final class CpuClock {

    /** Linux's USER_HZ: clock ticks per second in /proc. */
    private static final double TICKS_PER_SECOND = 100;

    private CpuClock() {
    }

    /**
     * What all CPUs of the machine did so far, from the first line of {@code /proc/stat} (clock ticks
     * of 10 ms, summed over the CPUs).
     *
     * @param busySeconds  user, nice, system, irq and softirq time
     * @param stealSeconds time the hypervisor gave to other guests while this one wanted to run
     * @param idleSeconds  idle and I/O-wait time
     */
    record Machine(double busySeconds, double stealSeconds, double idleSeconds) {

        /** @return the work done between {@code before} and this reading */
        Machine since(Machine before) {
            return new Machine(busySeconds - before.busySeconds, stealSeconds - before.stealSeconds,
                    idleSeconds - before.idleSeconds);
        }

        /** @return the busy share of all CPU time, 0..1 */
        double busyShare() {
            double all = busySeconds + stealSeconds + idleSeconds;
            return all <= 0 ? 0 : busySeconds / all;
        }

        /** @return the stolen share of all CPU time, 0..1 */
        double stealShare() {
            double all = busySeconds + stealSeconds + idleSeconds;
            return all <= 0 ? 0 : stealSeconds / all;
        }
    }

    /** @return the machine's CPU time so far, or null when /proc/stat cannot be read */
    static Machine machine() {
        String stat = read(Path.of("/proc/stat"));
        if (stat == null || !stat.startsWith("cpu ")) {
            return null;
        }
        String[] f = stat.substring(4, stat.indexOf('\n')).trim().split(" +");
        // user nice system idle iowait irq softirq steal [guest guest_nice: already inside user and nice]
        long busy = Long.parseLong(f[0]) + Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[5])
                + Long.parseLong(f[6]);
        long idle = Long.parseLong(f[3]) + Long.parseLong(f[4]);
        long steal = f.length > 7 ? Long.parseLong(f[7]) : 0;
        return new Machine(busy / TICKS_PER_SECOND, steal / TICKS_PER_SECOND, idle / TICKS_PER_SECOND);
    }

    /** @return CPU seconds this JVM has used, or -1 when it cannot be read */
    static double self() {
        return seconds(ProcessHandle.current().pid());
    }

    /** @return CPU seconds the process has used, or -1 when it cannot be read */
    static double seconds(long pid) {
        long[] f = fields(pid);
        return f == null ? -1 : (f[0] + f[1]) / TICKS_PER_SECOND;
    }

    /** @return CPU seconds of every process named {@code postgres}, and of the postmaster's finished children */
    static double postgresSeconds() {
        double total = 0;
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).toList()) {
                long pid = Long.parseLong(p.getFileName().toString());
                String comm = read(p.resolve("comm"));
                if (comm == null || !comm.strip().equals("postgres")) {
                    continue;
                }
                long[] f = fields(pid);
                if (f == null) {
                    continue;
                }
                total += (f[0] + f[1]) / TICKS_PER_SECOND;
                if (f[4] == 1) { // the postmaster (its parent is init): add its reaped children
                    total += (f[2] + f[3]) / TICKS_PER_SECOND;
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return total;
    }

    /** @return utime, stime, cutime, cstime and ppid, or null */
    private static long[] fields(long pid) {
        String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
        if (stat == null) {
            return null;
        }
        // The command name (field 2) is in parentheses and may hold spaces: split after its last ')'.
        List<String> rest = List.of(stat.substring(stat.lastIndexOf(')') + 2).split(" "));
        // rest.get(0) is field 3 (state), so field n is rest.get(n - 3).
        return new long[]{Long.parseLong(rest.get(11)), Long.parseLong(rest.get(12)), Long.parseLong(rest.get(13)),
                Long.parseLong(rest.get(14)), isPostmaster(rest) ? 1 : 0};
    }

    private static boolean isPostmaster(List<String> rest) {
        return "1".equals(rest.get(1)); // field 4: parent pid
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
