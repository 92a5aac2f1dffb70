/**
 * The HTTP edge of the application, in front of the REST resources: every error the container answers
 * itself rendered as problem details, request limits and the CSRF guard for state-changing requests,
 * and the security headers of the console.
 */
package dev.mailqueue.http.boundary;
