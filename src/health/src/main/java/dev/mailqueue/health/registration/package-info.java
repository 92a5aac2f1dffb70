/**
 * Registers the queue's health checks where both servers find them: the EAR's library (WFLY-12835).
 */
package dev.mailqueue.health.registration;
