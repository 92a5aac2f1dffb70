/**
 * One-click unsubscribe as recipients use it: a signed link checked and turned into a suppression of
 * that address for that list, without a login.
 */
package dev.mailqueue.unsubscribe.boundary;
