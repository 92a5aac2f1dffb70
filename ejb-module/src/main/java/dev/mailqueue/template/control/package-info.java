/**
 * Rendering: FreeMarker templates compiled once per version and locale, each mail's render held to a time limit
 * and a heap cap, the RFC 4647 locale lookup, the variables' shape rules, and the text part derived from HTML with
 * jsoup.
 */
package dev.mailqueue.template.control;
