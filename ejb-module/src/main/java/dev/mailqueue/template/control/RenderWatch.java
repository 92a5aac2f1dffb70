package dev.mailqueue.template.control;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Stops a render that runs too long or allocates too much ({@link RenderLimits}). Why this shape:
 * FreeMarker 2.3 has no time or memory limit, but it can check, at the start of every loop iteration
 * ({@code #list}, {@code #items}) and every macro or function body, whether its thread was interrupted
 * ({@code _CoreAPI.addThreadInterruptedChecks}, as FreeMarker's online tester uses it). So the render runs on
 * the caller's own thread (the EJB's: no thread hand-off per mail, and a render that has stopped leaves no
 * work behind), and one sweep task on a scheduler (the container's managed one) looks every
 * {@value #SWEEP_MILLIS} ms at the renders under way: past the deadline, or past the allocation cap (the
 * thread's allocated bytes, {@code com.sun.management.ThreadMXBean}), it interrupts the thread. The interrupt
 * is set only while that render runs (a {@link Watch} and the sweep take the watch's lock) and cleared when it
 * ends, so it never reaches the container's code. A render is also refused when it <em>ends</em> over a
 * limit, which catches one expression that allocates a lot with no loop around it.
 *
 * <p>The sweep runs only while a render is under way: the first render schedules it, and it cancels itself once
 * there is none.
 */
public final class RenderWatch {

    /** How often the sweep looks at the renders under way, ms: how far past a limit a render can run. */
    static final long SWEEP_MILLIS = 5;

    private static final Logger LOG = Logger.getLogger(RenderWatch.class.getName());

    /**
     * {@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes(long)} bound to the platform's thread bean, or
     * null where the JVM does not count. Found through the boot class loader and called through a method handle:
     * WildFly's module system does not show the {@code com.sun.management} package to a deployment, so naming the
     * type in this class failed to load it there (NoClassDefFoundError); the JDK exports the package, so the
     * handle may call it from any class loader.
     */
    private static final MethodHandle THREADS = threads();

    private final ScheduledExecutorService scheduler;
    private final RenderLimits limits;
    private final List<Watch> running = new ArrayList<>(); // guarded by this
    private ScheduledFuture<?> sweep; // guarded by this

    /**
     * @param scheduler runs the sweep; the container's managed scheduler in production
     * @param limits    the limits every render is held to
     */
    public RenderWatch(ScheduledExecutorService scheduler, RenderLimits limits) {
        this.scheduler = scheduler;
        this.limits = limits;
    }

    /** @return the limits every render is held to */
    public RenderLimits limits() {
        return limits;
    }

    private static MethodHandle threads() {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        try {
            Class<?> counting = Class.forName("com.sun.management.ThreadMXBean", false, null);
            if (counting.isInstance(bean)) {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                boolean supported = (boolean) lookup.findVirtual(counting, "isThreadAllocatedMemorySupported",
                        MethodType.methodType(boolean.class)).invoke(bean);
                if (supported) {
                    if (!(boolean) lookup.findVirtual(counting, "isThreadAllocatedMemoryEnabled",
                            MethodType.methodType(boolean.class)).invoke(bean)) {
                        lookup.findVirtual(counting, "setThreadAllocatedMemoryEnabled",
                                MethodType.methodType(void.class, boolean.class)).invoke(bean, true);
                    }
                    return lookup.findVirtual(counting, "getThreadAllocatedBytes",
                            MethodType.methodType(long.class, long.class)).bindTo(bean);
                }
            }
        } catch (Throwable e) { // no such type, method or access on this JVM: counted as not supported
            LOG.fine(() -> "no per-thread allocation counter: " + e);
        }
        LOG.warning("This JVM does not count the bytes a thread allocates: templates are held to their time limit"
                + " only, not to mailqueue.templates.max-render-bytes");
        return null;
    }

    /** @return the bytes the current thread allocated so far, or 0 where the JVM does not count them */
    private static long allocated(Thread thread) {
        if (THREADS == null) {
            return 0;
        }
        try {
            return Math.max(0, (long) THREADS.invokeExact(thread.getId()));
        } catch (Throwable e) { // the counter is a plain getter; nothing it throws is the render's fault
            return 0;
        }
    }

    /**
     * Starts watching a render on the current thread; close the watch when the render ends, in a finally block.
     *
     * @return the watch
     */
    public Watch start() {
        Watch watch = new Watch(Thread.currentThread());
        synchronized (this) {
            running.add(watch);
            if (sweep == null) {
                sweep = scheduler.scheduleAtFixedRate(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
        return watch;
    }

    /** Cancels the sweep, e.g. when the application stops; a later render schedules it again. */
    public synchronized void stop() {
        if (sweep != null) {
            sweep.cancel(false);
            sweep = null;
        }
    }

    private void sweep() {
        List<Watch> now;
        synchronized (this) {
            if (running.isEmpty()) {
                stop();
                return;
            }
            now = List.copyOf(running);
        }
        for (Watch watch : now) {
            watch.check();
        }
    }

    /** One render under way on one thread. */
    public final class Watch implements AutoCloseable {

        private final Thread thread;
        private final long startNanos = System.nanoTime();
        private final long startBytes;
        private final boolean wasInterrupted;
        private String tripped; // guarded by this
        private boolean interrupted; // guarded by this
        private boolean done; // guarded by this

        private Watch(Thread thread) {
            this.thread = thread;
            this.wasInterrupted = Thread.interrupted(); // an earlier interrupt must not stop this render
            this.startBytes = allocated(thread);
        }

        private synchronized void check() {
            if (done || tripped != null) {
                return;
            }
            tripped = over(allocated(thread));
            if (tripped != null) {
                interrupted = true;
                thread.interrupt(); // FreeMarker's next interruption check ends the render
            }
        }

        /** @return why the render is over a limit, or null */
        private String over(long allocatedNow) {
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            if (millis > limits.timeoutMillis()) {
                return "took longer than " + limits.timeoutMillis() + " ms to render (" + RenderLimits.TIMEOUT + ")";
            }
            if (THREADS != null && allocatedNow - startBytes > limits.maxAllocatedBytes()) {
                return "needed more than " + limits.maxAllocatedBytes() + " bytes of memory to render ("
                        + RenderLimits.MAX_ALLOCATED_BYTES + ")";
            }
            return null;
        }

        /**
         * Called on the rendering thread when a part has ended (or failed).
         *
         * @return why the render was stopped, or is over a limit now; null when it kept to the limits so far
         */
        public synchronized String outcome() {
            if (tripped == null && !done) {
                tripped = over(allocated(thread));
            }
            return tripped;
        }

        /** Ends the watch: clears the interrupt it may have set, and restores one the thread had before. */
        @Override
        public void close() {
            synchronized (this) {
                done = true;
                if (interrupted) {
                    Thread.interrupted(); // the interrupt was this watch's, set under this lock
                }
            }
            synchronized (RenderWatch.this) {
                running.remove(this);
            }
            if (wasInterrupted) {
                thread.interrupt();
            }
        }
    }
}
