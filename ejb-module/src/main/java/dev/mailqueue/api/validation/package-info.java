/**
 * Bean Validation constraints for mail requests: address syntax and RFC 5321 lengths, header safety,
 * and the rules that span several fields.
 */
package dev.mailqueue.api.validation;
