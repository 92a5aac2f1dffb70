/** Brings the database schema to the version this build expects, from the DDL in sql/. */
package dev.mailqueue.schema.control;
