/**
 * The contract other applications compile against: the {@link dev.mailqueue.api.MailQueue} business
 * interface and its remote view, the request and answer types, and the exceptions. This package, and
 * only this package, makes up the EJB client jar ({@code mailqueue-ejb-client.jar}).
 */
package dev.mailqueue.api;
