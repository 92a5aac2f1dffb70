/** The retention job's chunk artifacts: which rows are old enough to go, and deleting them in bounded transactions. */
package dev.mailqueue.retention.control;
