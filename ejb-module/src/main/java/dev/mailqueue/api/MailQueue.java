package dev.mailqueue.api;

import java.util.List;

/**
 * The mail queue's use cases, shared by the local view and the remote view
 * ({@link MailQueueRemote}). An application hands a mail over and returns at once; the queue sends it
 * later, retrying failed attempts, at the rate the SMTP server allows.
 *
 * <p>Callers need the role {@code mail-sender} or {@code mail-admin}; without it every method throws
 * {@code jakarta.ejb.EJBAccessException}. A sender sees and cancels only the mails it enqueued (others
 * are "not found" to it); an administrator sees all.
 *
 * <p>Business errors are checked {@link MailQueueException}s, so that callers of the remote view in
 * other applications receive and can catch them as their own classes.
 */
public interface MailQueue {

    /**
     * Queues one mail. Joins the caller's JTA transaction: if the caller rolls back, nothing is queued
     * (transactional outbox); without a caller transaction the mail is committed on return.
     *
     * @param request the mail; see {@link MailRequest} for the rules
     * @return the id and the Message-ID the mail will carry on every attempt
     * @throws InvalidMailException       when the request breaks a rule; names each field at fault
     * @throws SenderNotAllowedException when the caller may not send from the request's From address
     *                                   (its allow-list, {@code mailqueue.security.allowed-from.<user>})
     */
    EnqueueReceipt enqueue(MailRequest request) throws InvalidMailException, SenderNotAllowedException;

    /**
     * Queues up to {@link MailLimits#BATCH} mails at once, all or nothing, in the caller's transaction
     * like {@link #enqueue(MailRequest)}.
     *
     * @param requests 1 to 1,000 mails
     * @return one receipt per mail, in the order given
     * @throws InvalidMailException when the list is empty or too long, or any mail breaks a rule; each
     *                              field is named with the mail's index, e.g. {@code [3].to[0]}, and
     *                              no mail is queued
     * @throws SenderNotAllowedException when the caller may not send from a mail's From address; each
     *                                   is named as {@code [index].from}, and no mail is queued
     */
    List<EnqueueReceipt> enqueueAll(List<MailRequest> requests) throws InvalidMailException, SenderNotAllowedException;

    /**
     * @param id the id from {@link EnqueueReceipt#getId()}
     * @return the mail's status, attempt log and envelope
     * @throws MailNotFoundException when no mail has this id that the caller may see
     */
    MailView find(long id) throws MailNotFoundException;

    /**
     * Withdraws a mail that has not been claimed yet; it becomes {@link MailStatus#CANCELLED}.
     *
     * @param id the mail
     * @return the mail after the change
     * @throws MailNotFoundException when no mail has this id
     * @throws MailStateException    when the mail is not {@link MailStatus#QUEUED} (being sent or done)
     */
    MailView cancel(long id) throws MailNotFoundException, MailStateException;
}
