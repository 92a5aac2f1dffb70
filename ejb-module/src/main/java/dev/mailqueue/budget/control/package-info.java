/** The one in-flight memory budget of the application: request bodies and SMTP submissions are read only with a share of it. */
package dev.mailqueue.budget.control;
