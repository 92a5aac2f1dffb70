/**
 * The queue's settings, read once from MicroProfile Config and checked when the application starts; the
 * defaults are written once, in {@code META-INF/microprofile-config.properties}.
 */
package dev.mailqueue.settings.control;
