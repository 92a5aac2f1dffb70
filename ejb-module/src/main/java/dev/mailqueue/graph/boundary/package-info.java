/** The start-up check of the accounts that send through Microsoft Graph. */
package dev.mailqueue.graph.boundary;
