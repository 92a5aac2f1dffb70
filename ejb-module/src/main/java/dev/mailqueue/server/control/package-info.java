/**
 * What the application takes from the server it runs on, by names both Open Liberty and WildFly resolve.
 */
package dev.mailqueue.server.control;
