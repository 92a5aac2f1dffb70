/** The timer that starts the dispatch job, and nothing else. */
package dev.mailqueue.dispatch.boundary;
