/** The operator's queries and bulk updates: filters as criteria, search pages, requeue/cancel/delete, statistics. */
package dev.mailqueue.admin.control;
