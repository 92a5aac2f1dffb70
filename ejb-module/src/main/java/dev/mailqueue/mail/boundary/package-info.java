/** The enqueue facade: the stateless session bean other code calls, with its local view. */
package dev.mailqueue.mail.boundary;
