/** MicroProfile Health checks: readiness (database, SMTP server) and liveness (the dispatch timer fires). */
package dev.mailqueue.health.boundary;
