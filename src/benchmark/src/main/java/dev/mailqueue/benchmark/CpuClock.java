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
 * cstime, fields 16 and 17), so a backend that ended during the phase still counts. Liberty's JIT compiler and
 * garbage collector threads are also read apart ({@code /proc/<pid>/task/<tid>/stat}, by thread name), to tell a
 * JVM still compiling from one whose own work costs more.
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

    /**
     * CPU time used so far by the processes a phase is charged to: the whole machine, the server's JVM,
     * PostgreSQL, smtp-sink and this client. Take one right before and one right after a phase's timed
     * part and subtract ({@link #since}); a figure that could not be read is negative (or null).
     *
     * @param machine  every CPU of the machine, or null
     * @param liberty  the server's JVM, seconds, or -1
     * @param postgres every postgres process, seconds, or -1
     * @param sink     smtp-sink, seconds, or -1
     * @param client   this JVM, seconds, or -1
     * @param libertyJit the server JVM's JIT compiler threads (HotSpot's {@code C1/C2 CompilerThread}), seconds,
     *                   or -1; part of {@code liberty}
     * @param libertyGc  the server JVM's garbage collector threads ({@code GC Thread}, {@code G1 ...}), seconds,
     *                   or -1; part of {@code liberty}
     */
    record Reading(Machine machine, double liberty, double postgres, double sink, double client, double libertyJit,
                   double libertyGc) {

        /**
         * @param libertyPid the server's JVM, 0 for none
         * @param sinkPid    smtp-sink, 0 for none
         * @return the CPU time used so far
         */
        static Reading now(long libertyPid, long sinkPid) {
            double[] threads = libertyPid > 0 ? jvmThreadSeconds(libertyPid) : null;
            return new Reading(CpuClock.machine(), libertyPid > 0 ? seconds(libertyPid) : -1, postgresSeconds(),
                    sinkPid > 0 ? seconds(sinkPid) : -1, self(), threads == null ? -1 : threads[0],
                    threads == null ? -1 : threads[1]);
        }

        /** @return what was used between {@code before} and this reading; -1 (null) where either is missing */
        Reading since(Reading before) {
            return new Reading(machine == null || before.machine == null ? null : machine.since(before.machine),
                    minus(liberty, before.liberty), minus(postgres, before.postgres), minus(sink, before.sink),
                    minus(client, before.client), minus(libertyJit, before.libertyJit),
                    minus(libertyGc, before.libertyGc));
        }

        private static double minus(double now, double then) {
            return now < 0 || then < 0 ? -1 : now - then;
        }

        /** @return the machine's busy CPU time per unit, milliseconds, or -1 */
        double machineMillis(long units) {
            return machine == null ? -1 : 1000 * machine.busySeconds() / units;
        }

        /** @return milliseconds per unit of a process figure, or -1 when it was not measured */
        static double millis(double seconds, long units) {
            return seconds < 0 ? -1 : 1000 * seconds / units;
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

    /**
     * @return CPU seconds of a HotSpot JVM's JIT compiler threads and of its garbage collector threads, by the
     *         thread names Linux keeps (15 characters: {@code C2 CompilerThre}, {@code GC Thread#0}, {@code G1 Conc#0},
     *         {@code G1 Refine#0}, ...), or null when {@code /proc/<pid>/task} cannot be read. HotSpot starts and
     *         stops compiler threads as the work asks, and a thread that ended between two readings is missing
     *         from the later one, so a phase's figure can be a little low.
     */
    static double[] jvmThreadSeconds(long pid) {
        double jit = 0;
        double gc = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                String stat = read(task.resolve("stat"));
                if (stat == null) {
                    continue; // the thread ended
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                boolean compiler = name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
                boolean collector = name.startsWith("GC Thread") || name.startsWith("G1 ");
                if (compiler || collector) {
                    long[] f = fields(stat);
                    double seconds = (f[0] + f[1]) / TICKS_PER_SECOND;
                    if (compiler) {
                        jit += seconds;
                    } else {
                        gc += seconds;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return new double[]{jit, gc};
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

    /** @return {@link #fields(String)} of a process, or null when it is gone */
    private static long[] fields(long pid) {
        String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
        return stat == null ? null : fields(stat);
    }

    /** @return utime, stime, cutime, cstime (clock ticks) and whether the parent is init (1, else 0) of a stat line */
    private static long[] fields(String stat) {
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
