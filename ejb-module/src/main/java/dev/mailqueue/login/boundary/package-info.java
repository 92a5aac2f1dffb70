/** The start-up check of the accounts that log in with OAuth2. */
package dev.mailqueue.login.boundary;
