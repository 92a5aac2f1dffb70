/** The rules of the security configuration: which secrets a server must be given, since none has a default. */
package dev.mailqueue.security.control;
