/** The start-up check of the accounts that send through Amazon SES. */
package dev.mailqueue.ses.boundary;
