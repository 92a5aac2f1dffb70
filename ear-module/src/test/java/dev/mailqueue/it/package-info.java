/**
 * Integration tests: the real EAR on a real Liberty (Arquillian managed container, client mode),
 * a real SMTP server (GreenMail in this JVM) and the server's Derby database.
 */
package dev.mailqueue.it;
