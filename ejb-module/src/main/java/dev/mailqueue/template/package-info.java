/**
 * Stored templates: a name, a version and one subject, text part and HTML part per locale, as FreeMarker source;
 * rendered at enqueue, so what is queued is what is sent. The admin API (dev.mailqueue.admin.boundary.Templates) stores, lists, previews and deletes them.
 */
package dev.mailqueue.template;
