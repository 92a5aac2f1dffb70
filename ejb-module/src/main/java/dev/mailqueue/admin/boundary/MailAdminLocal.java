package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.MailAdmin;
import jakarta.ejb.Local;

/** The local view of the operator's use cases, for the admin REST API in the same application. */
@Local
public interface MailAdminLocal extends MailAdmin {
}
