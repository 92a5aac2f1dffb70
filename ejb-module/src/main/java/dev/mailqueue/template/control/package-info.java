/**
 * Rendering: FreeMarker templates compiled once per version and locale, the RFC 4647 locale lookup, the
 * variables' shape rules, and the text part derived from HTML with jsoup.
 */
package dev.mailqueue.template.control;
