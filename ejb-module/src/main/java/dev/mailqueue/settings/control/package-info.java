/**
 * The queue's settings, read once from MicroProfile Config and checked when the application starts (the
 * defaults are written once, in {@code META-INF/microprofile-config.properties}), and the policies they
 * configure: retries and their backoff, the in-doubt rule, soft bounces, limits on bounce reports.
 */
package dev.mailqueue.settings.control;
