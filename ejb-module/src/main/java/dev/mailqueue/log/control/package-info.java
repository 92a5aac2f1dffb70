/** What the queue writes to the server log about requests: user text only ever escaped and shortened. */
package dev.mailqueue.log.control;
