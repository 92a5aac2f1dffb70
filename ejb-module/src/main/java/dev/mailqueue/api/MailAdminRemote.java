package dev.mailqueue.api;

import jakarta.ejb.Remote;

/**
 * The remote view of the operator's use cases, for tools in other applications. Look it up as
 * {@code java:global/mailqueue/mailqueue-ejb/QueueAdministration!dev.mailqueue.api.MailAdminRemote};
 * the caller's identity must carry the role {@code mail-admin}.
 */
@Remote
public interface MailAdminRemote extends MailAdmin {
}
