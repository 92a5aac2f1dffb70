/** E-mail addresses as people write them: parsing a mailbox with its display name, IDNA domains, SMTPUTF8 local parts. */
package dev.mailqueue.address.control;
