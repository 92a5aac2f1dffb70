/** The operator's facade: the session bean behind the admin REST API, the dashboard and the remote admin view. */
package dev.mailqueue.admin.boundary;
