/** Checks at application start that the server's security configuration is complete. */
package dev.mailqueue.security.boundary;
