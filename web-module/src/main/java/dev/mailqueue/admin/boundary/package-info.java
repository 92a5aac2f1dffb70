/** The operator's REST API under /api/admin: search, bulk and single actions, attempt logs, statistics. */
package dev.mailqueue.admin.boundary;
