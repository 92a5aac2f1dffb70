/**
 * The queue's MicroProfile Health checks: readiness (database, SMTP accounts, webhooks, delivery mode) and
 * liveness (the dispatch timer fires), marked {@link dev.mailqueue.health.registration.QueueHealthCheck} and
 * registered from the EAR's library, where Open Liberty and WildFly both find them.
 */
package dev.mailqueue.health.boundary;
