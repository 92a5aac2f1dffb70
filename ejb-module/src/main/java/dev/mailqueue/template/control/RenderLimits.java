package dev.mailqueue.template.control;

import dev.mailqueue.settings.control.Settings;

/**
 * What one mail's rendering may cost, read once from the settings (defaults in
 * {@code META-INF/microprofile-config.properties}). FreeMarker 2.3 has no limit of its own on time, on the
 * strings a template builds ({@code <#assign s = s + s>}) or the sequences it makes ({@code (1..n)?sort}), so
 * {@link RenderWatch} measures the rendering thread: the wall-clock time since the render began and the bytes of
 * heap it allocated (all its strings, sequences and FreeMarker's own objects together), and stops the render
 * at its next loop iteration or macro call once either is over its limit, and in any case refuses it when it
 * ends over them.
 *
 * @param timeoutMillis     wall-clock milliseconds one mail's parts may take to render together, 10 to 600,000
 *                          ({@value #TIMEOUT})
 * @param maxAllocatedBytes bytes of heap one mail's rendering may allocate, 1 MiB to 16 GiB
 *                          ({@value #MAX_ALLOCATED_BYTES})
 */
public record RenderLimits(long timeoutMillis, long maxAllocatedBytes) {

    /** The setting of {@link #timeoutMillis()}. */
    public static final String TIMEOUT = "mailqueue.templates.render-timeout.ms";

    /** The setting of {@link #maxAllocatedBytes()}. */
    public static final String MAX_ALLOCATED_BYTES = "mailqueue.templates.max-render-bytes";

    /** The least and greatest {@link #timeoutMillis()}. */
    static final long MIN_TIMEOUT = 10, MAX_TIMEOUT = 600_000;

    /** The least and greatest {@link #maxAllocatedBytes()}. */
    static final long MIN_BYTES = 1L << 20, MAX_BYTES = 16L << 30;

    /**
     * @throws IllegalArgumentException when a value is out of its range
     */
    public RenderLimits {
        if (timeoutMillis < MIN_TIMEOUT || timeoutMillis > MAX_TIMEOUT) {
            throw new IllegalArgumentException("timeout " + timeoutMillis + " ms is not from " + MIN_TIMEOUT + " to "
                    + MAX_TIMEOUT);
        }
        if (maxAllocatedBytes < MIN_BYTES || maxAllocatedBytes > MAX_BYTES) {
            throw new IllegalArgumentException("allocation cap " + maxAllocatedBytes + " bytes is not from "
                    + MIN_BYTES + " to " + MAX_BYTES);
        }
    }

    /**
     * @param settings the application's settings
     * @return the limits they set
     * @throws IllegalStateException naming the setting that is missing or out of range
     */
    public static RenderLimits read(Settings settings) {
        return new RenderLimits(settings.whole(TIMEOUT, MIN_TIMEOUT, MAX_TIMEOUT),
                settings.whole(MAX_ALLOCATED_BYTES, MIN_BYTES, MAX_BYTES));
    }
}
